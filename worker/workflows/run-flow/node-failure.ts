// A node's failure after its last attempt: the run's failure, or, with the node's on_error, an
// output its children receive (and with "branch", its error handle).
import { ApplicationFailure, CancellationScope, patched, TimeoutFailure } from "@temporalio/workflow";
import {
  NODE_ON_ERROR,
  RUN_TREE_CLOSED_ERROR,
  type NodeErrorOutput,
  type NodePlan,
  type RunError,
  type RunErrorOrigin,
} from "../../../core/contracts/run-flow.js";
import { ERROR_BRANCH, type NodeOutcome } from "../../../core/flows/node-input.js";
import { bookkeeping } from "./activity-options.js";
import type { RunState } from "./run-state.js";

/**
 * Whether the node's activity found its run's tree closed by a cancel (its children refused): the
 * node is then cancelled, as its run is being, not failed. A type only new histories hold.
 */
export function treeClosed(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof ApplicationFailure && cause.type === RUN_TREE_CLOSED_ERROR) return true;
  }
  return false;
}

/** The message of the innermost cause of an activity or child failure. */
function rootMessage(error: unknown): { message: string; type?: string; details?: unknown[] } {
  let current = error as { message?: string; cause?: unknown; type?: string; details?: unknown[] } | undefined;
  while (current?.cause) current = current.cause as typeof current;
  return { message: current?.message ?? String(error), type: current?.type ?? undefined, details: current?.details };
}

/** The run's failure at node `id`: the innermost cause's message and type, and where it started when a child run carried it up. */
export function runErrorOf(id: string, error: unknown): RunError {
  const { message, type, details } = rootMessage(error);
  const origin = (details?.[0] as { origin?: RunErrorOrigin } | undefined)?.origin;
  return { node_id: id, message, ...(type === undefined ? {} : { type }), ...(origin ? { origin } : {}) };
}

/** What a node whose failure is handled outputs: its error's message and type (Timeout for a timeout). */
function errorOutputOf(error: unknown, plan: NodePlan): NodeErrorOutput {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof TimeoutFailure) {
      return { error: { message: `the node timed out (timeout_ms ${plan.timeoutMs})`, code: "Timeout" } };
    }
  }
  const { message, type } = rootMessage(error);
  return { error: { message, code: type ?? "Error" } };
}

/**
 * Whether the node's failure (after its last attempt) is handled by its on_error rather than
 * failing the run. Not once the run is failing or cancelled anyway. Histories recorded before
 * on_error existed never reach the patch (their plans have no onError).
 */
export const handlesFailure = (state: RunState, id: string) =>
  state.run.plan[id]!.onError !== undefined && !state.failure && !state.cancelled && patched(NODE_ON_ERROR);

/**
 * A handled failure: the node's last attempt stays a failed step, which also records what the
 * node passes on, `{ error: { message, code } }`, as its output; with on_error "branch" the
 * node takes its error handle (only its "error" edges run).
 */
export async function handledFailure(state: RunState, id: string, error: unknown): Promise<NodeOutcome> {
  const plan = state.run.plan[id]!;
  const output = errorOutputOf(error, plan);
  const branch = plan.onError === "branch" ? { branch: ERROR_BRANCH } : {};
  await CancellationScope.nonCancellable(() =>
    bookkeeping.recordHandledFailure({
      runId: state.run.runId,
      nodeId: id,
      type: plan.type,
      onError: plan.onError!,
      output,
      ...branch,
    }),
  );
  return { state: "done", output, ...branch };
}
