// Error flows: a flow's definition may name another flow of its workspace (`error_flow_id`) to
// start when one of its runs fails (else the workspace's own, its settings' error_flow_id), with the failed run and its error as input, as n8n's error
// workflow or Inngest's onFailure do. The outbox dispatcher (worker/webhooks/dispatcher.ts) meets
// each run.failed event: in its transaction it records the error flow's run (its id derived from
// the failed run's, so a pass repeated after a crash finds it), and after the commit it starts its
// workflow. Runs of error flows, and the runs they start, start none of their own (no loop of
// failures), and nor do cancelled runs. An error flow's run sits in the failed run's tree, one
// level below it, within the tree's limits (core/runs/start/child-runs.ts).
import { Prisma, sqlQuery } from "../../../lib/db.js";
import type { JsonSeal } from "../../../lib/crypto/sealed-json.js";
import { derivedId } from "../../../lib/ids.js";
import type { RunFlowInput, RunTrigger } from "../../contracts/run-flow.js";
import { DomainError } from "../../errors.js";
import { childRunInput, startChildRuns, type ChildRunsDeps } from "./child-runs.js";

/** The trigger of an error flow's run (runs with it start no error flow). */
export const ERROR_FLOW_TRIGGER = "error_flow";

/** The run of the error flow for the failed run `failedRunId`: one, whatever repeats. */
export const errorFlowRunId = (failedRunId: string) => derivedId("run", ["error-flow", failedRunId]);

/** What an error flow's run gets as input (its trigger node's output). */
export interface ErrorFlowInput {
  failed_run: {
    id: string;
    flow_id: string;
    flow_name: string;
    version: number;
    trigger: RunTrigger;
    started_at: string;
    finished_at: string | null;
  };
  /** The node whose failure ended the run, when one did. */
  node_id: string | null;
  error: unknown;
}

interface FailedRun {
  id: string;
  workspace_id: string;
  flow_id: string;
  flow_name: string;
  version: number;
  trigger: RunTrigger;
  error: { node_id?: string; message?: string } | null;
  started_at: Date;
  finished_at: Date | null;
  task_queue: string | null;
  error_flow_id: string | null;
}

/** An error flow's run to start once the transaction that recorded it (or found it) commits. */
export interface ErrorFlowStart {
  run: RunFlowInput;
  taskQueue: string;
}

/**
 * For each failed run of `runIds` whose version names an error flow: records that flow's run, in
 * `tx`, unless an earlier pass did; answers the runs to start (still running: a start that never
 * happened is made again). An error flow that is gone, paused, cannot run or would take the run
 * tree past its limits is skipped and `skipped` says why.
 */
export async function recordErrorFlowRuns(
  tx: Prisma.TransactionClient,
  deps: ChildRunsDeps & { taskQueue: string },
  runIds: string[],
  skipped: (failedRunId: string, reason: string) => void = () => undefined,
): Promise<ErrorFlowStart[]> {
  if (runIds.length === 0) return [];
  const failed = await sqlQuery<FailedRun>(
    tx,
    Prisma.sql`
      SELECT r.id, r.workspace_id, r.flow_id, r.flow_name, r.version, r.trigger, r.error, r.started_at,
        r.finished_at, r.task_queue,
        COALESCE(COALESCE(v.definition, f.definition)->>'error_flow_id', w.error_flow_id) AS error_flow_id
      FROM runs r
      JOIN workspaces w ON w.id = r.workspace_id
      LEFT JOIN flow_versions v ON v.flow_id = r.flow_id AND v.version = r.version
      LEFT JOIN flows f ON f.id = r.flow_id AND f.version = r.version
      WHERE r.id IN (${Prisma.join(runIds)}) AND r.status = 'failed' AND NOT r.in_error_flow`,
  );
  const starts: ErrorFlowStart[] = [];
  for (const run of failed) {
    if (!run.error_flow_id) continue;
    const taskQueue = run.task_queue ?? deps.taskQueue;
    let started;
    try {
      started = await startChildRuns(tx, deps, {
        workspaceId: run.workspace_id,
        flowId: run.error_flow_id,
        trigger: ERROR_FLOW_TRIGGER,
        parent: { runId: run.id, relation: "error_flow" },
        runs: [{ id: errorFlowRunId(run.id), input: errorFlowInput(run, deps.seal) }],
        taskQueue,
      });
    } catch (error) {
      if (error instanceof DomainError) {
        skipped(run.id, `error flow ${run.error_flow_id}: ${error.message}`);
        continue;
      }
      throw error;
    }
    // An earlier pass recorded it and may not have started it: start it (again) while it runs.
    if (started.runs[0]?.status === "running") starts.push({ run: childRunInput(started), taskQueue });
  }
  return starts;
}

/** The input of the error flow's run: the failed run and its error. */
function errorFlowInput(run: FailedRun, seal: JsonSeal): ErrorFlowInput {
  const error = seal.open(run.error) as FailedRun["error"];
  return {
    failed_run: {
      id: run.id,
      flow_id: run.flow_id,
      flow_name: run.flow_name,
      version: run.version,
      trigger: run.trigger,
      started_at: run.started_at.toISOString(),
      finished_at: run.finished_at?.toISOString() ?? null,
    },
    node_id: error?.node_id ?? null,
    error,
  };
}
