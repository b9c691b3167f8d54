// What a member does to a run that has to end or go: cancel it (and every run below it), or
// delete it once it has ended.
import type { Clock } from "../../../lib/clock.js";
import { recordAudit, type AuditContext } from "../../audit/audit-log.js";
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
export async function cancelRun(deps: CancelRunDeps, workspaceId: string, id: string, audit?: AuditContext) {
  const run = await findRun(deps, workspaceId, id);
  if (runHasEnded(run.status)) throw new RunNotRunning(`The run is ${run.status}`);
  await cancelRunTree(deps, { id, kind: "run", workspaceId });
  // Written once the tree is closed: who stopped the run (the runs below it go with it).
  if (audit)
    await recordAudit(deps.prisma, deps.clock, audit, {
      action: "run.cancelled",
      object: { kind: "run", id },
      details: { flow_id: run.flowId, flow_name: run.flowName, version: run.version },
    });
  return { run_id: id, status: "cancelling" as const };
}

/** Deletes an ended run and its log entries; a running or queued run is refused. */
export async function removeRun(
  deps: RunReadDeps & { clock: Clock },
  workspaceId: string,
  id: string,
  audit?: AuditContext,
): Promise<void> {
  const { prisma } = deps;
  const run = await findRun(deps, workspaceId, id);
  if (!runHasEnded(run.status)) {
    throw new RunRunning();
  }
  await prisma.$transaction(async (tx) => {
    await tx.logEntry.deleteMany({ where: { runId: id, workspaceId } });
    const { count } = await tx.run.deleteMany({ where: { id, workspaceId } });
    // The row keeps what the run was (its flow, version and outcome), never its data.
    if (audit && count > 0)
      await recordAudit(tx, deps.clock, audit, {
        action: "run.deleted",
        object: { kind: "run", id },
        details: { flow_id: run.flowId, flow_name: run.flowName, version: run.version, status: run.status },
      });
  });
}
