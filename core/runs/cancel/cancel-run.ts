// What a member does to a run that has to end or go: cancel it (and every run below it), or
// delete it once it has ended.
import type { Clock } from "../../../lib/clock.js";
import type { Logger } from "../../../lib/logger.js";
import type { BlobStore } from "../records/blobs.js";
import { DomainError, domainErrorClass } from "../../errors.js";
import { findRun, type RunReadDeps } from "../reads/run-reads.js";
import { cancelRunTree } from "./run-tree-cancel.js";
import type { Client } from "@temporalio/client";
import { runHasEnded } from "../../contracts/run-flow.js";

/** Cancelled, but the run has ended (or its workflow never existed). */
export class RunNotRunning extends DomainError {
  override name = "RunNotRunning";
  constructor(message: string) {
    super("conflict", "run_not_running", message);
  }
}

/** Deleted, but the run is still running (or queued). */
export const RunRunning = domainErrorClass(
  "RunRunning",
  "conflict",
  "run_running",
  "The run is running: cancel it first (POST /api/runs/{id}/cancel)",
);

export interface CancelRunDeps extends RunReadDeps {
  clock: Clock;
  temporal: Client;
  blobs: BlobStore;
  logger: Pick<Logger, "warn">;
}

/**
 * Cancels the run and every run below it (core/runs/cancel/run-tree-cancel.ts): the tree below it is
 * closed first, and the run ends cancelled. One whose workflow does not exist yet stays running
 * in its closed tree until the reconciler cancels its workflow or ends it cancelled.
 */
export async function cancelRun(deps: CancelRunDeps, workspaceId: string, id: string) {
  const run = await findRun(deps, workspaceId, id);
  if (runHasEnded(run.status)) throw new RunNotRunning(`The run is ${run.status}`);
  await cancelRunTree(deps, { id, kind: "run", workspaceId });
  return { run_id: id, status: "cancelling" as const };
}

/** Deletes an ended run and its log entries; a running or queued run is refused. */
export async function removeRun(deps: RunReadDeps, workspaceId: string, id: string): Promise<void> {
  const { prisma } = deps;
  const run = await findRun(deps, workspaceId, id);
  if (!runHasEnded(run.status)) {
    throw new RunRunning();
  }
  await prisma.$transaction([
    prisma.logEntry.deleteMany({ where: { runId: id, workspaceId } }),
    prisma.run.deleteMany({ where: { id, workspaceId } }),
  ]);
}
