// The run's end, once no node is in flight: its status and output, its record (unless the last
// node's activity ended it), and Temporal's status matching the record.
import { ApplicationFailure, CancellationScope, CancelledFailure, patched } from "@temporalio/workflow";
import {
  RUN_ENDS_IN_TEMPORAL_STATUS,
  RUN_FAILED_ERROR,
  type RunFlowResult,
  type RunOutcome,
} from "../../../core/contracts/run-flow.js";
import { bookkeeping } from "./activity-options.js";
import { outputOf, skippedNodes, type RunState } from "./run-state.js";

/** The run's output: its one sink's output, or each sink's by node id. */
function runOutput(state: RunState): unknown {
  const { graph, order, outcomes } = state;
  const sinks = order.filter((id) => graph.children.get(id)!.length === 0 && outcomes.get(id)?.state === "done");
  return sinks.length === 1
    ? outputOf(state, sinks[0]!)
    : Object.fromEntries(sinks.map((id) => [id, outputOf(state, id)]));
}

export async function endRun(state: RunState): Promise<RunFlowResult> {
  const { run } = state;
  const status: RunOutcome = state.cancelled ? "cancelled" : state.failure ? "failed" : "success";
  const output = status === "success" ? runOutput(state) : undefined;
  const error = state.cancelled ? { message: "The run was cancelled" } : state.failure;

  // Recorded even when the run is being cancelled; already recorded when the last node ended it.
  const finalOutput =
    state.runEnded && status === "success"
      ? output
      : await CancellationScope.nonCancellable(() =>
          bookkeeping.finalizeRun({
            runId: run.runId,
            status,
            output,
            error,
            skipped: skippedNodes(state),
            reused: state.reused,
            succeeded: [...state.succeeded, ...state.unwritten],
            ...(state.interrupted.length > 0
              ? { interrupted: state.interrupted.map((nodeId) => ({ nodeId, type: run.plan[nodeId]!.type })) }
              : {}),
          }),
        );
  const result: RunFlowResult = {
    runId: run.runId,
    status,
    ...(status === "success" ? { output: finalOutput } : {}),
    ...(error ? { error } : {}),
  };
  if (status !== "success" && patched(RUN_ENDS_IN_TEMPORAL_STATUS)) {
    // After the record: Temporal's status says what the run's record says.
    if (status === "cancelled") throw new CancelledFailure("The run was cancelled");
    throw ApplicationFailure.create({
      type: RUN_FAILED_ERROR,
      message: error?.node_id ? `node ${error.node_id}: ${error.message}` : (error?.message ?? "The run failed"),
      nonRetryable: true,
      details: [result],
    });
  }
  return result;
}
