// Error flows: a flow's definition may name another flow of its workspace (`error_flow_id`) to
// start when one of its runs fails (else the workspace's own, its settings' error_flow_id), with the failed run and its error as input, as n8n's error
// workflow or Inngest's onFailure do. The outbox dispatcher (worker/webhooks/dispatcher.ts) meets
// each run.failed event: in its transaction it records the error flow's run (its id derived from
// the failed run's, so a pass repeated after a crash finds it), and after the commit it starts its
// workflow. Runs of error flows start none of their own (no loop of failures), and nor do
// cancelled runs.
import { Prisma, sqlQuery } from "../../lib/db.js";
import type { Clock } from "../../lib/clock.js";
import type { JsonSeal } from "../../lib/crypto/sealed-json.js";
import { derivedId } from "../../lib/ids.js";
import type { RunFlowInput } from "../contracts/run-flow.js";
import { DomainError } from "../errors.js";
import type { NodeRegistry } from "../nodes/registry.js";
import { recordRunStart } from "./run-records.js";
import { pinFlow, runFlowInput } from "./start-run.js";

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
    trigger: string;
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
  trigger: string;
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
 * happened is made again). An error flow that is gone, paused or cannot run is skipped and
 * `skipped` says why.
 */
export async function recordErrorFlowRuns(
  tx: Prisma.TransactionClient,
  deps: { clock: Clock; seal: JsonSeal; nodes: NodeRegistry; taskQueue: string },
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
      WHERE r.id IN (${Prisma.join(runIds)}) AND r.status = 'failed' AND r.trigger <> ${ERROR_FLOW_TRIGGER}`,
  );
  const starts: ErrorFlowStart[] = [];
  for (const stored of failed) {
    if (!stored.error_flow_id) continue;
    const run = {
      ...stored,
      error_flow_id: stored.error_flow_id,
      error: deps.seal.open(stored.error) as FailedRun["error"],
    };
    const id = errorFlowRunId(run.id);
    const taskQueue = run.task_queue ?? deps.taskQueue;
    const recorded = await tx.run.findUnique({ where: { id } });
    if (recorded) {
      // An earlier pass recorded it and may not have started it: start it (again) while it runs.
      if (recorded.status !== "running") continue;
      const flow = await pinFlow(tx, deps.nodes, recorded, { active: false });
      starts.push({
        run: runFlowInput({ ...flow, name: recorded.flowName }, { ...recorded, input: deps.seal.open(recorded.input) }),
        taskQueue,
      });
      continue;
    }
    let flow;
    try {
      flow = await pinFlow(tx, deps.nodes, { workspaceId: run.workspace_id, flowId: run.error_flow_id });
    } catch (error) {
      if (error instanceof DomainError) {
        skipped(run.id, `error flow ${run.error_flow_id}: ${error.message}`);
        continue;
      }
      throw error;
    }
    const input: ErrorFlowInput = {
      failed_run: {
        id: run.id,
        flow_id: run.flow_id,
        flow_name: run.flow_name,
        version: run.version,
        trigger: run.trigger,
        started_at: run.started_at.toISOString(),
        finished_at: run.finished_at?.toISOString() ?? null,
      },
      node_id: run.error?.node_id ?? null,
      error: run.error,
    };
    const startedAt = deps.clock.now();
    await recordRunStart(tx, deps, {
      id,
      workspaceId: flow.workspaceId,
      flowId: flow.id,
      flowName: flow.name,
      version: flow.version,
      trigger: ERROR_FLOW_TRIGGER,
      input,
      taskQueue,
      startedAt,
    });
    starts.push({ run: runFlowInput(flow, { id, input, startedAt }), taskQueue });
  }
  return starts;
}
