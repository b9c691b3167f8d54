import type { Clock } from "../../lib/clock.js";
import type { Logger } from "../../lib/logger.js";
import type { BlobStore } from "./blobs.js";
import { RunNotRunning } from "./run-errors.js";
import { findRun, type RunReadDeps } from "./run-reads.js";
import { cancelRunTree } from "./run-tree-cancel.js";
import type { Client } from "@temporalio/client";

export interface CancelRunDeps extends RunReadDeps {
  clock: Clock;
  temporal: Client;
  blobs: BlobStore;
  logger: Pick<Logger, "warn">;
}

/**
 * Cancels the run and every run below it (core/runs/run-tree-cancel.ts): the tree below it is
 * closed first, and the run ends cancelled. One whose workflow does not exist yet stays running
 * in its closed tree until the reconciler cancels its workflow or ends it cancelled.
 */
export async function cancelRun(deps: CancelRunDeps, workspaceId: string, id: string) {
  const run = await findRun(deps, workspaceId, id);
  if (run.status !== "running") throw new RunNotRunning(`The run is ${run.status}`);
  await cancelRunTree(deps, { id, kind: "run", workspaceId });
  return { run_id: id, status: "cancelling" as const };
}
