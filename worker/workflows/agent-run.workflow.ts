// An agent run: a loop of model calls and tool calls, each an activity (flow.run a child
// workflow), so a worker lost mid-loop resumes where it was and finished calls are not repeated.
// The conversation lives in the workflow; limits end the loop with a stated reason. A call of a
// tool in approvalTools first waits for a member's decision (an update; no activity runs meanwhile).
// The parts live in agent-run/: the run's state, a turn of the loop, tool calls, approvals, the end.
import { isCancellation } from "@temporalio/workflow";
import type { AgentRunInput, AgentRunResult } from "../../core/contracts/agent-run.js";
import { endAgentRun } from "./agent-run/agent-end.js";
import { createAgentState } from "./agent-run/agent-state.js";
import { listMcpTools } from "./agent-run/mcp-listing.js";
import { takeTurn } from "./agent-run/model-turn.js";
import { handleWaitDecisions } from "./wait-decisions.js";

export async function agentRun(input: AgentRunInput): Promise<AgentRunResult> {
  const state = createAgentState(input);
  handleWaitDecisions(state.waits);
  try {
    if (input.mcpServers?.length) await listMcpTools(state);
    for (;;) {
      const ended = await takeTurn(state);
      if (ended) return ended;
    }
  } catch (error) {
    if (isCancellation(error)) await endAgentRun(state, "cancelled", "cancelled", null, "The agent run was cancelled");
    throw error;
  }
}
