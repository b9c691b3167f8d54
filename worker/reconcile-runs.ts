// No run (nor agent run) stays `running` (or `queued`) after its workflow has closed: runs whose workflow ended without
// recording its end (terminated from the Temporal UI, timed out, never started) are ended here. A
// run is never found "never started" while something may still start it: a child run whose
// parent's workflow still runs (its start may be queued behind a backlog) is left alone. And the
// runs a cancel left running in a closed tree (core/runs/cancel/run-tree-cancel.ts: their workflows did
// not exist yet) have their workflows cancelled once they exist, or end cancelled.
import { WorkflowNotFoundError, type Client } from "@temporalio/client";
import type { Clock } from "../lib/clock.js";
import type { PrismaClient } from "../lib/db.js";
import type { Logger } from "../lib/logger.js";
import { runPeriodically } from "../lib/periodic.js";
import { UNENDED_RUN_STATUSES, type RunOutcome } from "../core/contracts/run-flow.js";
import type { BlobStore } from "../core/runs/records/blobs.js";
import { finalizeRunRecord } from "../core/runs/records/run-ends.js";
import { finishAgentRunRecord } from "../core/agents/agent-records.js";
import { ERROR_FLOW_TRIGGER } from "../core/runs/start/error-flows.js";
import { reconcileOperations } from "../core/operations/operation-reconcile.js";

export interface ReconcileDeps {
  /** The task queue of this worker: its runs, and those recorded before runs named theirs. */
  taskQueue?: string;
  prisma: PrismaClient;
  clock: Clock;
  temporal: Client;
  blobs: BlobStore;
  logger?: Logger;
  /** BULK_RERUN_PER_SECOND: the pace of a bulk rerun whose workflow is started here (it never started). */
  bulkRerunPerSecond?: number;
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
 * Checks runs still `running` or `queued` that started more than `minAgeMs` ago (the API records a run just
 * before starting its workflow) and ends those whose workflow is closed or missing. A run whose
 * workflow never started frees its idempotency key, so that a client's repeat starts a new run.
 */
export async function reconcileRuns(
  deps: ReconcileDeps,
  { minAgeMs = 60_000, limit = 200, workspaceId }: ReconcileScope = {},
): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - minAgeMs);
  const runs = await deps.prisma.run.findMany({
    where: {
      status: { in: [...UNENDED_RUN_STATUSES] },
      startedAt: { lt: before },
      ...(workspaceId ? { workspaceId } : {}),
      ...ownQueue(deps),
    },
    orderBy: { startedAt: "asc" },
    take: limit,
    select: RUN_COLUMNS,
  });
  return (
    (await endClosedRuns(deps, runs.map(runToCheck), before)) +
    (await reconcileAgentRuns(deps, { minAgeMs, limit, workspaceId }))
  );
}

/** How long nothing must have tried to start a run's workflow before it counts as never started. */
const UNTRIED_MS = 20_000;

/**
 * The quick pass for runs whose workflow may never have started: recent runs still `running`
 * (a `queued` one's workflow has run: it stored that status) with no step yet, older than the longest an API start takes (its start and its check). Such a
 * run was left by a start whose outcome was unknown (Temporal unreachable mid-start) or by an API
 * that died between the record and the start; ended within seconds rather than at the next
 * full pass.
 */
export async function reconcileUnstartedRuns(
  deps: ReconcileDeps,
  {
    minAgeMs = UNTRIED_MS,
    maxAgeMs = 10 * 60_000,
    limit = 200,
    workspaceId,
  }: ReconcileScope & { maxAgeMs?: number } = {},
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
    select: RUN_COLUMNS,
  });
  return endClosedRuns(deps, runs.map(runToCheck), before);
}

/**
 * The pass over runs a cancel left running in their closed tree for longer than `minAgeMs`
 * (core/runs/cancel/run-tree-cancel.ts: their workflows did not exist when it came): a workflow that
 * exists now is cancelled (it ends its run cancelled), one closed ends the run as the others do,
 * and a run whose workflow nothing can start any more ends cancelled. Answers how many it ended
 * or cancelled.
 */
export async function reconcileClosedRuns(
  deps: ReconcileDeps,
  { minAgeMs = 2_000, untriedMs = UNTRIED_MS, limit = 200, workspaceId }: ReconcileScope & { untriedMs?: number } = {},
): Promise<number> {
  const now = deps.clock.now().getTime();
  const before = new Date(now - minAgeMs);
  const runs = await deps.prisma.run.findMany({
    where: {
      status: { in: [...UNENDED_RUN_STATUSES] },
      treeClosedAt: { lt: before },
      ...(workspaceId ? { workspaceId } : {}),
      ...ownQueue(deps),
    },
    orderBy: { startedAt: "asc" },
    take: limit,
    select: RUN_COLUMNS,
  });
  let done = 0;
  const ending: RunToCheck[] = [];
  for (const run of runs.map(runToCheck)) {
    if (!(await workflowRunning(deps, run.id))) {
      ending.push(run);
      continue;
    }
    await deps.temporal.workflow.getHandle(run.id).cancel();
    deps.logger?.warn({ id: run.id }, "cancelled the workflow of a run in a closed tree");
    done++;
  }
  // A root's start may still be on its way (an API start takes up to 10 s): as the quick pass.
  return done + (await endClosedRuns(deps, ending, new Date(now - untriedMs)));
}

/**
 * A worker reconciles the runs of its own task queue only: another queue's runs may belong to
 * another Temporal server sharing this database (where this one would find no workflow).
 */
const ownQueue = ({ taskQueue }: ReconcileDeps) => (taskQueue ? { OR: [{ taskQueue }, { taskQueue: null }] } : {});

type Closed = { status: RunOutcome; message: string; neverStarted?: true };

/** What a pass reads of a run: its id, and what may still start its workflow. */
const RUN_COLUMNS = { id: true, parentRunId: true, parentAgentRunId: true, trigger: true, treeClosedAt: true } as const;
interface RunToCheck {
  id: string;
  /**
   * The workflow that starts this one as its child, once it gets to it: a loop's item's, a
   * flow.call's or an agent's run's parent, an ai.agent node's agent run's run. None for roots
   * and error flows' runs (the outbox dispatcher starts those).
   */
  startedBy: string | null;
  /** Cancelled with its tree before its workflow started: it ends cancelled, not failed. */
  treeClosedAt?: Date | null;
}

const runToCheck = (run: {
  id: string;
  parentRunId: string | null;
  parentAgentRunId: string | null;
  trigger: string;
  treeClosedAt: Date | null;
}): RunToCheck => ({
  id: run.id,
  startedBy: run.parentAgentRunId ?? (run.trigger === ERROR_FLOW_TRIGGER ? null : run.parentRunId),
  treeClosedAt: run.treeClosedAt,
});

/** Whether the workflow runs (true), has closed (false) or does not exist (undefined). */
async function workflowRunning(deps: ReconcileDeps, id: string): Promise<boolean | undefined> {
  try {
    return (await deps.temporal.workflow.getHandle(id).describe()).status.name === "RUNNING";
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    return undefined;
  }
}

/**
 * Whether the run's workflow may still be started by its parent's (RunToCheck.startedBy), which
 * may not have got to it yet (a backlog of workflow tasks) while that workflow runs. Once it has
 * closed, the start never comes.
 */
async function parentMayStart(deps: ReconcileDeps, run: RunToCheck): Promise<boolean> {
  return run.startedBy ? (await workflowRunning(deps, run.startedBy)) === true : false;
}

/**
 * How the run's workflow closed: undefined while it runs, or while it does not exist and its
 * parent's workflow may still start it. One that does not exist and never will was never
 * started: failed, or cancelled when a cancel closed its tree first.
 */
async function closedWorkflow(deps: ReconcileDeps, run: RunToCheck): Promise<Closed | undefined> {
  try {
    return CLOSED[(await deps.temporal.workflow.getHandle(run.id).describe()).status.name];
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    if (await parentMayStart(deps, run)) return undefined;
    if (run.treeClosedAt) {
      return { status: "cancelled", message: "Not run: cancelled before its workflow started", neverStarted: true };
    }
    return { status: "failed", message: "The run's workflow was never started", neverStarted: true };
  }
}

/** Ends (with `end`) each record of `runs` whose workflow is closed or was never started; counts those ended. */
async function endClosed(
  deps: ReconcileDeps,
  runs: RunToCheck[],
  end: (id: string, closed: Closed) => Promise<boolean>,
): Promise<number> {
  let ended = 0;
  for (const run of runs) {
    const closed = await closedWorkflow(deps, run);
    if (closed && (await end(run.id, closed))) {
      ended++;
      deps.logger?.warn({ id: run.id, status: closed.status }, closed.message);
    }
  }
  return ended;
}

/**
 * Ends each run whose workflow is closed or was never started (freeing its idempotency key, unless
 * a cancel ended it). A run found never started is ended only if nothing has tried to start it
 * since `untriedSince`: a repeat with its key may be starting it right now (it marks the run
 * before it tries).
 */
const endClosedRuns = (deps: ReconcileDeps, runs: RunToCheck[], untriedSince: Date) =>
  endClosed(deps, runs, (runId, closed) =>
    finalizeRunRecord(
      deps,
      { runId, status: closed.status, error: { message: closed.message }, skipped: [], reused: [] },
      closed.neverStarted ? { releaseKey: closed.status === "failed", startUntriedSince: untriedSince } : {},
    ),
  );

/** The same for agent runs: an agentRun workflow closed without ending its run. */
async function reconcileAgentRuns(
  deps: ReconcileDeps,
  { minAgeMs, limit, workspaceId }: Required<Omit<ReconcileScope, "workspaceId">> & ReconcileScope,
) {
  const before = new Date(deps.clock.now().getTime() - minAgeMs);
  const found = await deps.prisma.agentRun.findMany({
    where: { status: "running", startedAt: { lt: before }, ...(workspaceId ? { workspaceId } : {}) },
    orderBy: { startedAt: "asc" },
    take: limit,
    select: { id: true, parentRunId: true },
  });
  // An ai.agent node's agent run is its run's child workflow: a parent that runs may still start it.
  const runs = found.map((run) => ({ id: run.id, startedBy: run.parentRunId }));
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

/** Runs reconcileRuns every `intervalMs` or so, and reconcileUnstartedRuns and reconcileClosedRuns every `quickIntervalMs`. */
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
        await reconcileClosedRuns(deps);
        if (deps.taskQueue && deps.bulkRerunPerSecond) {
          await reconcileOperations({ ...deps, taskQueue: deps.taskQueue, perSecond: deps.bulkRerunPerSecond });
        }
      },
      { intervalMs: quickIntervalMs, onError },
    ),
  ];
  return () => stops.forEach((stop) => stop());
}
