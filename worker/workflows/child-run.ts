// A child run's outcome as its parent (a loop, a schedule fire, an agent's flow.run) reads it:
// a failed or cancelled child ends its workflow Failed or Cancelled (see RUN_FAILED_ERROR), or,
// recorded before that, completed with its result; both read as the same RunFlowResult.
import { ApplicationFailure, CancelledFailure, ChildWorkflowFailure } from "@temporalio/workflow";
import { RUN_FAILED_ERROR, type RunFlowResult } from "../../core/contracts/run-flow.js";

export async function childRunOutcome(runId: string, child: Promise<RunFlowResult>): Promise<RunFlowResult> {
  try {
    return await child;
  } catch (error) {
    if (error instanceof ChildWorkflowFailure) {
      const { cause } = error;
      if (cause instanceof ApplicationFailure && cause.type === RUN_FAILED_ERROR && cause.details?.[0]) {
        return cause.details[0] as RunFlowResult;
      }
      if (cause instanceof CancelledFailure) {
        return { runId, status: "cancelled", error: { message: "The run was cancelled" } };
      }
    }
    throw error;
  }
}
