// A model call a budget held back: the agent waits for an admin's decision (an update, as a tool
// approval does; no activity runs meanwhile): approved, the call runs once; rejected, the agent
// stops and ends cancelled; no decision within the agent's time, it ends `timeout`.
import { CancellationScope } from "@temporalio/workflow";
import type { BudgetWaitFinishInput } from "../../../core/contracts/agent-run.js";
import { BUDGET_DECIDERS, type BudgetHold } from "../../../core/contracts/waits.js";
import { closeDecided, type WaitState } from "../wait-decisions.js";
import { bookkeeping } from "./activity-options.js";
import { timeLeft, type AgentRunState } from "./agent-state.js";
import { decisionWithin } from "./approval.js";

/** How a budget wait ended: the wait an admin approved (the call's pass), or why the run ends. */
export type BudgetOutcome = { approved: string } | "stopped" | "timeout";

export async function awaitBudgetDecision(
  state: AgentRunState,
  number: number,
  hold: BudgetHold,
): Promise<BudgetOutcome> {
  const { input } = state;
  const left = timeLeft(state);
  if (left <= 0) return "timeout";
  const start = await bookkeeping.agentStartBudgetWait({
    agentRunId: input.agentRunId,
    workspaceId: input.workspaceId,
    number,
    hold,
    timeoutMs: left,
  });
  const wait: WaitState = { start: { mode: "approval", deciders: BUDGET_DECIDERS } };
  state.waits.set(start.waitId, wait);
  const finish = (end: Omit<BudgetWaitFinishInput, "waitId">) =>
    CancellationScope.nonCancellable(() => bookkeeping.agentFinishBudgetWait({ waitId: start.waitId, ...end }));
  if (!(await decisionWithin(wait, left))) {
    wait.expired = true;
    await finish({ status: "expired" });
    return "timeout";
  }
  const verdict = await closeDecided(wait, start.waitId, finish);
  return verdict === "approved" ? { approved: start.waitId } : "stopped";
}
