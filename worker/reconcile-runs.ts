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
  /** The task queue of this worker: its runs, and those recorded before runs named theirs. */
  taskQueue?: string;
  prisma: PrismaClient;
  clock: Clock;
  temporal: Client;
  blobs: BlobStore;
  logger?: Logger;
}

export interface ReconcileScope {
  /** Only runs that started longer ago than this. */
  minAgeMs?: number;
  limit?: number;
  /** Only this workspace's runs (a test's own, an operator's targeted pass). */
  workspaceId?: string;
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
 * before starting its workflow) and ends those whose workflow is closed or missing. A run whose
 * workflow never started frees its idempotency key, so that a client's repeat starts a new run.
 */
export async function reconcileRuns(
  deps: ReconcileDeps,
  { minAgeMs = 60_000, limit = 200, workspaceId }: ReconcileScope = {},
): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - minAgeMs);
  const runs = await deps.prisma.run.findMany({
    where: { status: "running", startedAt: { lt: before }, ...(workspaceId ? { workspaceId } : {}), ...ownQueue(deps) },
    orderBy: { startedAt: "asc" },
    take: limit,
    select: { id: true },
  });
  return (await endClosedRuns(deps, runs, before)) + (await reconcileAgentRuns(deps, { minAgeMs, limit, workspaceId }));
}

/**
 * The quick pass for runs whose workflow may never have started: recent runs still `running`
 * with no step yet, older than the longest an API start takes (its start and its check). Such a
 * run was left by a start whose outcome was unknown (Temporal unreachable mid-start) or by an API
 * that died between the record and the start; ended within seconds rather than at the next
 * full pass.
 */
export async function reconcileUnstartedRuns(
  deps: ReconcileDeps,
  { minAgeMs = 20_000, maxAgeMs = 10 * 60_000, limit = 200, workspaceId }: ReconcileScope & { maxAgeMs?: number } = {},
): Promise<number> {
  const now = deps.clock.now().getTime();
  const before = new Date(now - minAgeMs);
  const runs = await deps.prisma.run.findMany({
    where: {
      status: "running",
      ...(workspaceId ? { workspaceId } : {}),
      startedAt: { lt: before, gte: new Date(now - maxAgeMs) },
      // A client still repeating the request with the run's key (each repeat tries the start
      // again) keeps it: the pass ends runs no one has tried to start for minAgeMs.
      AND: [{ OR: [{ startAttemptedAt: null }, { startAttemptedAt: { lt: before } }] }],
      steps: { none: {} },
      ...ownQueue(deps),
    },
    orderBy: { startedAt: "asc" },
    take: limit,
    select: { id: true },
  });
  return endClosedRuns(deps, runs, before);
}

/**
 * A worker reconciles the runs of its own task queue only: another queue's runs may belong to
 * another Temporal server sharing this database (where this one would find no workflow).
 */
const ownQueue = ({ taskQueue }: ReconcileDeps) => (taskQueue ? { OR: [{ taskQueue }, { taskQueue: null }] } : {});

type Closed = { status: RunOutcome; message: string; neverStarted?: true };

/** How each workflow of `ids` closed: undefined while it runs. */
async function closedWorkflow(deps: ReconcileDeps, id: string): Promise<Closed | undefined> {
  try {
    return CLOSED[(await deps.temporal.workflow.getHandle(id).describe()).status.name];
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    return { status: "failed", message: "The run's workflow was never started", neverStarted: true };
  }
}

/** Ends (with `end`) each record of `ids` whose workflow is closed or was never started; counts those ended. */
async function endClosed(
  deps: ReconcileDeps,
  ids: Array<{ id: string }>,
  end: (id: string, closed: Closed) => Promise<boolean>,
): Promise<number> {
  let ended = 0;
  for (const { id } of ids) {
    const closed = await closedWorkflow(deps, id);
    if (closed && (await end(id, closed))) {
      ended++;
      deps.logger?.warn({ id, status: closed.status }, closed.message);
    }
  }
  return ended;
}

/**
 * Ends each run whose workflow is closed or was never started (freeing its idempotency key). A
 * run found never started is ended only if nothing has tried to start it since `untriedSince`:
 * a repeat with its key may be starting it right now (it marks the run before it tries).
 */
const endClosedRuns = (deps: ReconcileDeps, runs: Array<{ id: string }>, untriedSince: Date) =>
  endClosed(deps, runs, (runId, closed) =>
    finalizeRunRecord(
      deps,
      { runId, status: closed.status, error: { message: closed.message }, skipped: [], reused: [] },
      closed.neverStarted ? { releaseKey: true, startUntriedSince: untriedSince } : {},
    ),
  );

/** The same for agent runs: an agentRun workflow closed without ending its run. */
async function reconcileAgentRuns(
  deps: ReconcileDeps,
  { minAgeMs, limit, workspaceId }: Required<Omit<ReconcileScope, "workspaceId">> & ReconcileScope,
) {
  const before = new Date(deps.clock.now().getTime() - minAgeMs);
  const runs = await deps.prisma.agentRun.findMany({
    where: { status: "running", startedAt: { lt: before }, ...(workspaceId ? { workspaceId } : {}) },
    orderBy: { startedAt: "asc" },
    take: limit,
    select: { id: true },
  });
  return endClosed(deps, runs, (agentRunId, closed) =>
    finishAgentRunRecord(
      { ...deps, seal: deps.blobs.seal },
      {
        agentRunId,
        status: closed.status,
        reason: closed.status === "cancelled" ? "cancelled" : "workflow_closed",
        answer: null,
        error: closed.message.replace("The run", "The agent run"),
      },
    ),
  );
}

/** Runs reconcileRuns every `intervalMs` or so, and reconcileUnstartedRuns every `quickIntervalMs`. */
export function scheduleReconciler(deps: ReconcileDeps, intervalMs = 60_000, quickIntervalMs = 5_000): () => void {
  const onError = (err: unknown) => deps.logger?.error({ err }, "run reconciliation failed");
  const stops = [
    runPeriodically(
      async () => {
        await reconcileRuns(deps);
      },
      { intervalMs, onError },
    ),
    runPeriodically(
      async () => {
        await reconcileUnstartedRuns(deps);
      },
      { intervalMs: quickIntervalMs, onError },
    ),
  ];
  return () => stops.forEach((stop) => stop());
}
