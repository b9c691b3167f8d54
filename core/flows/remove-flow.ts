// Deleting a flow, its running runs cancelled first so that none resumes a flow that is gone.
import type { Clock } from "../../lib/clock.js";
import type { PrismaClient } from "../../lib/db.js";
import { recordAudit, type AuditContext } from "../audit/audit-log.js";
import { temporalRefusal } from "../engine/temporal-start.js";
import { DomainError, FlowNotFound } from "../errors.js";
import { findFlow } from "./find-flow.js";
import { UNENDED_RUN_STATUSES } from "../contracts/run-flow.js";
import { SCHEDULE_TRANSACTION, type FlowSchedules } from "./flow-schedules.js";

/** How many runs of a deleted flow are cancelled side by side. */
const CANCELS_AT_ONCE = 8;

export interface RemoveFlowDeps {
  prisma: PrismaClient;
  clock: Clock;
  schedules: Pick<FlowSchedules, "remove">;
  /**
   * What cancels the runs of a flow being deleted (the runs service, which stands above flows:
   * handed in by the composition root).
   */
  runs: { cancel(workspaceId: string, runId: string): Promise<unknown> };
}

/** A cancel that found the run ended meanwhile, or gone (the runs' RunNotRunning, RunNotFound). */
const endedMeanwhile = (error: unknown) =>
  error instanceof DomainError && (error.code === "run_not_running" || error.kind === "not_found");

/**
 * Deletes the flow after cancelling its running runs (waiting ones included: their waits
 * close), as n8n and Windmill do, so that none resumes and executes a flow that is gone.
 * Cancelled first: when Temporal does not take a cancel, the flow stays (503) and a repeat
 * finishes the job. A run started in between (a hook, a schedule) is cancelled after.
 */
export async function removeFlow(
  deps: RemoveFlowDeps,
  workspaceId: string,
  id: string,
  audit?: AuditContext,
): Promise<{ cancelled_runs: string[] }> {
  const { prisma, clock, schedules } = deps;
  const flow = await findFlow(prisma, workspaceId, id);
  const cancelled = await cancelRunsOf(
    deps,
    { workspaceId, flowId: id },
    "The flow's runs could not be cancelled: it was not deleted",
  );
  await prisma.$transaction(async (tx) => {
    const { count } = await tx.flow.deleteMany({ where: { id, workspaceId } });
    if (count === 0) throw new FlowNotFound();
    if (audit)
      await recordAudit(tx, clock, audit, {
        action: "flow.deleted",
        object: { kind: "flow", id },
        details: { name: flow.name, version: flow.version, cancelled_runs: cancelled.length },
      });
    // Every flow may have had a schedule in an earlier version: removing a missing one is a no-op.
    await schedules.remove(id);
  }, SCHEDULE_TRANSACTION);
  const late = await cancelRunsOf(
    deps,
    { workspaceId, flowId: id },
    "The flow was deleted, but a run it started meanwhile could not be cancelled (POST /api/runs/{id}/cancel)",
    cancelled,
  );
  return { cancelled_runs: [...cancelled, ...late] };
}

/**
 * Asks Temporal to cancel each running run of the flow but those `already` asked (a few at a
 * time); the ids of those it took. A run that ended meanwhile is left as it ended; a cancel
 * Temporal refuses is `failure`.
 */
async function cancelRunsOf(
  { prisma, runs }: Pick<RemoveFlowDeps, "prisma" | "runs">,
  { workspaceId, flowId }: { workspaceId: string; flowId: string },
  failure: string,
  already: readonly string[] = [],
): Promise<string[]> {
  const running = await prisma.run.findMany({
    where: { workspaceId, flowId, status: { in: [...UNENDED_RUN_STATUSES] }, id: { notIn: [...already] } },
    select: { id: true },
    orderBy: { startedAt: "asc" },
  });
  const cancelled: string[] = [];
  for (let i = 0; i < running.length; i += CANCELS_AT_ONCE) {
    await Promise.all(
      running.slice(i, i + CANCELS_AT_ONCE).map(async ({ id: runId }) => {
        try {
          await runs.cancel(workspaceId, runId);
          cancelled.push(runId);
        } catch (error) {
          // Ended meanwhile, or deleted: nothing left to cancel.
          if (endedMeanwhile(error)) return;
          throw error instanceof DomainError ? error : temporalRefusal(failure, error, { run_id: runId });
        }
      }),
    );
  }
  return cancelled;
}
