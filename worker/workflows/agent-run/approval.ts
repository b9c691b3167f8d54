// A call of a tool in approvalTools waits for a member's decision (an update) before it runs; no
// activity runs meanwhile. The wait and its decision are recorded by the agent's activities.
import { CancellationScope, condition } from "@temporalio/workflow";
import type { ApprovalFinishInput, ToolCallInput, ToolCallResult } from "../../../core/contracts/agent-run.js";
import { closeDecided, type WaitState } from "../wait-decisions.js";
import { bookkeeping } from "./activity-options.js";
import { timeLeft, toolInput, type AgentRunState } from "./agent-state.js";

type ApprovalEnd = Pick<ApprovalFinishInput, "status" | "decision" | "comment" | "decidedBy" | "decidedAt">;
/** Closes the wait and records the approval step, even while the run is being cancelled. */
type FinishApproval = (end: ApprovalEnd) => Promise<void>;

/**
 * Waits for a member's decision on a call of a tool that needs approval: undefined when approved
 * (the tool runs), the result the model gets instead when rejected (or at once, for arguments
 * the tool refuses), or "timeout" when the agent's time ran out first.
 */
export async function awaitApproval(
  state: AgentRunState,
  call: ToolCallInput["call"],
  tool: string,
  mcp = false,
): Promise<ToolCallResult | "timeout" | undefined> {
  const left = timeLeft(state);
  if (left <= 0) return "timeout";
  const asked = { ...toolInput(state, call), tool, timeoutMs: left, ...(mcp ? { mcp: true as const } : {}) };
  const start = await bookkeeping.agentStartApproval(asked);
  if ("result" in start) return start.result;
  const wait: WaitState = { start: { mode: "approval", deciders: start.deciders } };
  state.waits.set(start.waitId, wait);
  const decided = await decisionWithin(wait, left);
  const finish: FinishApproval = (end) =>
    CancellationScope.nonCancellable(() =>
      bookkeeping.agentFinishApproval({ ...asked, waitId: start.waitId, since: start.since, ...end }),
    );
  if (!decided) {
    wait.expired = true;
    await finish({ status: "expired" });
    return "timeout";
  }
  return recordDecision(wait, start.waitId, finish);
}

/** Whether a decision came within `left` ms. */
export async function decisionWithin(wait: WaitState, left: number): Promise<boolean> {
  try {
    return await condition(() => wait.decision !== undefined, left);
  } catch (error) {
    // Cancelled: the run's end closes the wait's record.
    wait.closed = true;
    throw error;
  }
}

/** Records the decision taken; undefined when approved, else what the model gets instead. */
async function recordDecision(
  wait: WaitState,
  waitId: string,
  finish: FinishApproval,
): Promise<ToolCallResult | undefined> {
  const verdict = await closeDecided(wait, waitId, finish);
  if (verdict === "approved") return undefined;
  // The comment only: who decided stays in the step log, not in what goes to the provider.
  return { content: JSON.stringify({ rejected: true, comment: wait.decision!.comment ?? null }), isError: true };
}
