import { WorkflowNotFoundError, type Client } from "@temporalio/client";
import type { Clock } from "../../lib/clock.js";
import type { Logger } from "../../lib/logger.js";
import type { BlobStore } from "./blobs.js";
import { RunNotRunning } from "./run-errors.js";
import { findRun, type RunReadDeps } from "./run-reads.js";
import { finalizeRunRecord } from "./run-records.js";
import { cancelRunsBelow } from "./run-tree-cancel.js";

export interface CancelRunDeps extends RunReadDeps {
  clock: Clock;
  temporal: Client;
  blobs: BlobStore;
  logger: Pick<Logger, "warn">;
}

/**
 * Cancels the run and every run below it (core/runs/run-tree-cancel.ts). A run whose workflow
 * never started is marked failed, and the caller told so.
 */
export async function cancelRun(deps: CancelRunDeps, workspaceId: string, id: string) {
  const { prisma, clock, temporal, blobs } = deps;
  const run = await findRun(deps, workspaceId, id);
  if (run.status !== "running") throw new RunNotRunning(`The run is ${run.status}`);
  try {
    await temporal.workflow.getHandle(id).cancel();
    const tree = await prisma.run.findUniqueOrThrow({ where: { id }, select: { rootRunId: true } });
    await cancelRunsBelow(deps, { id, workspaceId, rootRunId: tree.rootRunId });
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    await finalizeRunRecord(
      { prisma, clock, blobs },
      {
        runId: id,
        status: "failed",
        error: { message: "The run's workflow was never started" },
        skipped: [],
        reused: [],
      },
    );
    throw new RunNotRunning("The run's workflow does not exist; the run was marked failed");
  }
  return { run_id: id, status: "cancelling" as const };
}
