// The one way a workflow runs a flow as its child (a loop's items, a flow.call, a schedule fire, an
// agent's flow.run): runFlow as a child workflow whose id is the run's id, with the run's search
// attributes, memo and display, read back as a RunFlowResult whichever way it ended.
import { ApplicationFailure, CancelledFailure, ChildWorkflowFailure, executeChild } from "@temporalio/workflow";
import { operatorMemo } from "../../core/contracts/operator-text.js";
import { runPriority } from "../../core/contracts/run-priority.js";
import {
  RUN_FAILED_ERROR,
  RUN_FLOW_WORKFLOW,
  runDisplay,
  runSearchAttributes,
  type RunFlowInput,
  type RunFlowResult,
  type RunTrigger,
} from "../../core/contracts/run-flow.js";

/** runFlow's signature, named by type rather than imported (run-flow.workflow.ts imports this module). */
type RunFlowWorkflow = (run: RunFlowInput) => Promise<RunFlowResult>;

/** Who started a child run, as operators read it in the Temporal UI. */
export interface ChildRunOrigin {
  trigger: RunTrigger;
  /** "run <id>", "schedule fire <id>", "agent run <id>". */
  parent: string;
  /** Memo fields beside the flow's name. */
  memo: Record<string, string | number>;
}

/** Runs `run` as a child workflow and waits for its outcome. */
export function runChildFlow(run: RunFlowInput, origin: ChildRunOrigin): Promise<RunFlowResult> {
  return childRunOutcome(
    run.runId,
    executeChild<RunFlowWorkflow>(RUN_FLOW_WORKFLOW, {
      workflowId: run.runId,
      args: [run],
      typedSearchAttributes: runSearchAttributes(run.workspaceId, run.flowId),
      // Its own flow's priority, not its parent's (which it would inherit otherwise).
      priority: runPriority(run),
      memo: operatorMemo({ flow_name: run.flowName, ...origin.memo }),
      ...runDisplay({ ...run, trigger: origin.trigger, parent: origin.parent }),
    }),
  );
}

/**
 * A child run's outcome as its parent reads it: a failed or cancelled child ends its workflow
 * Failed or Cancelled (see RUN_FAILED_ERROR), or, recorded before that, completed with its
 * result; both read as the same RunFlowResult.
 */
async function childRunOutcome(runId: string, child: Promise<RunFlowResult>): Promise<RunFlowResult> {
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
