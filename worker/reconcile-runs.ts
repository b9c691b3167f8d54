// No run (nor agent run) stays `running` after its workflow has closed: runs whose workflow ended without
// recording its end (terminated from the Temporal UI, timed out, never started) are ended here.
import { WorkflowNotFoundError, type Client } from "@temporalio/client";
import type { Clock } from "../lib/clock.js";
import type { PrismaClient } from "../lib/db.js";
import type { Logger } from "../lib/logger.js";
import { runPeriodically } from "../lib/periodic.js";
import type { RunOutcome } from "../core/contracts/run-flow.js";
import type { BlobStore } from "../core/runs/blobs.js";
import { finalizeRunRecord } from "../core/runs/run-records.js";
import { finishAgentRunRecord } from "../core/agents/agent-records.js";

export interface ReconcileDeps {
  prisma: PrismaClient;
  clock: Clock;
  temporal: Client;
  blobs: BlobStore;
  logger?: Logger;
}

const CLOSED: Record<string, { status: RunOutcome; message: string }> = {
  TERMINATED: { status: "failed", message: "The run's workflow was terminated" },
  TIMED_OUT: { status: "failed", message: "The run's workflow timed out" },
  FAILED: { status: "failed", message: "The run's workflow failed" },
  CANCELLED: { status: "cancelled", message: "The run was cancelled" },
  COMPLETED: { status: "failed", message: "The run's workflow completed without recording its end" },
  CONTINUED_AS_NEW: { status: "failed", message: "The run's workflow continued as new" },
};

/**
 * Checks runs still `running` that started more than `minAgeMs` ago (the API records a run just
 * before starting its workflow) and ends those whose workflow is closed or missing.
 */
export async function reconcileRuns(deps: ReconcileDeps, { minAgeMs = 60_000, limit = 200 } = {}): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - minAgeMs);
  const runs = await deps.prisma.run.findMany({
    where: { status: "running", startedAt: { lt: before } },
    orderBy: { startedAt: "asc" },
    take: limit,
    select: { id: true },
  });
  let ended = 0;
  for (const { id } of runs) {
    let closed: { status: RunOutcome; message: string } | undefined;
    try {
      const description = await deps.temporal.workflow.getHandle(id).describe();
      closed = CLOSED[description.status.name];
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      closed = { status: "failed", message: "The run's workflow was never started" };
    }
    if (!closed) continue;
    const done = await finalizeRunRecord(deps, {
      runId: id,
      status: closed.status,
      error: { message: closed.message },
      skipped: [],
      reused: [],
    });
    if (done) {
      ended++;
      deps.logger?.warn({ runId: id, status: closed.status }, closed.message);
    }
  }
  return ended + (await reconcileAgentRuns(deps, { minAgeMs, limit }));
}

/** The same for agent runs: an agentRun workflow closed without ending its run. */
async function reconcileAgentRuns(deps: ReconcileDeps, { minAgeMs, limit }: { minAgeMs: number; limit: number }) {
  const before = new Date(deps.clock.now().getTime() - minAgeMs);
  const runs = await deps.prisma.agentRun.findMany({
    where: { status: "running", startedAt: { lt: before } },
    orderBy: { startedAt: "asc" },
    take: limit,
    select: { id: true },
  });
  let ended = 0;
  for (const { id } of runs) {
    let closed: { status: RunOutcome; message: string } | undefined;
    try {
      closed = CLOSED[(await deps.temporal.workflow.getHandle(id).describe()).status.name];
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      closed = { status: "failed", message: "The agent run's workflow was never started" };
    }
    if (!closed) continue;
    const message = closed.message.replace("The run", "The agent run");
    const done = await finishAgentRunRecord(deps, {
      agentRunId: id,
      status: closed.status,
      reason: closed.status === "cancelled" ? "cancelled" : "workflow_closed",
      answer: null,
      error: message,
    });
    if (done) {
      ended++;
      deps.logger?.warn({ agentRunId: id, status: closed.status }, message);
    }
  }
  return ended;
}

/** Runs reconcileRuns every `intervalMs` or so. */
export function scheduleReconciler(deps: ReconcileDeps, intervalMs = 60_000): () => void {
  return runPeriodically(
    async () => {
      await reconcileRuns(deps);
    },
    { intervalMs, onError: (err) => deps.logger?.error({ err }, "run reconciliation failed") },
  );
}
