// A budgeted node (ai.prompt) whose activity found a budget reached: the run waits, as an agent
// does (agent-run/budget.ts), on a budget wait an admin decides through an update. Approved, the
// node runs once with the wait as its pass; rejected, the run ends cancelled; a failure elsewhere
// in the run closes the wait. No activity runs and no timer is set meanwhile.
import { ApplicationFailure, CancellationScope, CancelledFailure, condition } from "@temporalio/workflow";
import type {
  NodeActivityInput,
  NodeActivityResult,
  NodeBudgetWaitFinishInput,
} from "../../../core/contracts/run-flow.js";
import { BUDGET_DECIDERS, WAIT_REFUSALS, type BudgetHold } from "../../../core/contracts/waits.js";
import { closeDecided, type WaitState } from "../wait-decisions.js";
import { bookkeeping, type Activities } from "./activity-options.js";
import type { RunState } from "./run-state.js";

/** The step's error when an admin stops the run at the node's budget (the run ends cancelled). */
export const BUDGET_STOPPED = "BudgetStopped";

type BudgetWaitEnd = Omit<NodeBudgetWaitFinishInput, "runId" | "nodeId" | "type" | "waitId" | "since">;

/** The node's result once its budget wait is decided: the activity run again with the approval as its pass. */
export async function runAfterBudgetHold(
  state: RunState,
  id: string,
  args: NodeActivityInput,
  activities: Activities,
  hold: BudgetHold,
): Promise<NodeActivityResult> {
  const { run } = state;
  const key = { runId: run.runId, nodeId: id, type: args.type };
  const start = await bookkeeping.startNodeBudgetWait({
    ...key,
    workspaceId: run.workspaceId,
    flowId: run.flowId,
    hold,
  });
  const wait: WaitState = { nodeId: id, start: { mode: "approval", deciders: BUDGET_DECIDERS } };
  state.waits.set(start.waitId, wait);
  try {
    await condition(() => wait.decision !== undefined || state.failure !== undefined);
  } catch (error) {
    // The run is being cancelled: its end closes the wait's record and fails the step.
    wait.closed = true;
    throw error;
  }
  // Written even when the run is cancelled meanwhile: an accepted decision is recorded.
  const finish = (end: BudgetWaitEnd) =>
    CancellationScope.nonCancellable(() =>
      bookkeeping.finishNodeBudgetWait({ ...key, waitId: start.waitId, since: start.since, ...end }),
    );
  if (!wait.decision) {
    wait.closed = true;
    const message = `the run failed at node ${state.failure?.node_id} while this node waited on its budget`;
    await finish({ status: "cancelled", stepError: { message, type: WAIT_REFUSALS.closed } });
    throw ApplicationFailure.nonRetryable(message, WAIT_REFUSALS.closed);
  }
  const stopped = "An admin stopped the run at its budget";
  const verdict = await closeDecided(wait, start.waitId, (end) =>
    finish(end.decision === "rejected" ? { ...end, stepError: { message: stopped, type: BUDGET_STOPPED } } : end),
  );
  // A stop ends the run cancelled, as a cancellation does: no node starts after it.
  if (verdict === "rejected") throw new CancelledFailure(stopped);
  return activities[args.type]!({ ...args, budgetPass: start.waitId });
}
