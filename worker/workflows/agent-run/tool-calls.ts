// The tool calls of one model reply, in order: each waits for approval first when its tool needs
// it, then runs as an activity (flow.run as a child run between two activities). Their results go
// back into the conversation.
import type { ToolCall } from "../../../core/ai/language-models.js";
import type { AgentRunResult, ToolCallInput, ToolCallResult } from "../../../core/contracts/agent-run.js";
import { runChildFlow } from "../child-run.js";
import { bookkeeping } from "./activity-options.js";
import { endAgentRun } from "./agent-end.js";
import { toolInput, type AgentRunState } from "./agent-state.js";
import { awaitApproval } from "./approval.js";

/** Runs the calls; the run's end when the agent's time ran out waiting for a decision. */
export async function runToolCalls(state: AgentRunState, calls: ToolCall[]): Promise<AgentRunResult | undefined> {
  const { input } = state;
  for (const call of calls) {
    const offer = state.mcpTools.find((tool) => tool.wireName === call.name);
    const gated = offer ? (offer.approval ? offer.wireName : undefined) : ownGated(state, call);
    if (gated) {
      const instead = await awaitApproval(state, call, gated, offer !== undefined);
      if (instead === "timeout") {
        return endAgentRun(
          state,
          "failed",
          "timeout",
          null,
          `The agent ran out of its ${input.limits.timeout_ms} ms waiting for a decision on ${gated}`,
        );
      }
      if (instead) {
        state.messages.push({ role: "tool", toolCallId: call.id, content: instead.content });
        continue;
      }
    }
    const args = toolInput(state, call);
    const result = offer
      ? await bookkeeping.agentMcpToolCall({ ...args, server: input.mcpServers![offer.server]!, tool: offer.tool })
      : await callTool(state, args);
    state.messages.push({ role: "tool", toolCallId: call.id, content: result.content });
  }
  return undefined;
}

/** One of our tools in approvalTools, by the wire name (http_call) the model sends (core/agents/tools.ts). */
function ownGated({ input }: AgentRunState, call: ToolCall): string | undefined {
  const gated = input.approvalTools?.find((tool) => tool.replace(".", "_") === call.name);
  return gated && input.tools.includes(gated) ? gated : undefined;
}

function callTool(state: AgentRunState, args: ToolCallInput): Promise<ToolCallResult> {
  if (args.call.name === "flow_run" && state.input.tools.includes("flow.run")) return runFlowTool(state, args);
  return bookkeeping.agentToolCall(args);
}

/** flow.run: the run recorded by an activity, run as a child workflow, its outcome recorded by another. */
async function runFlowTool(state: AgentRunState, args: ToolCallInput): Promise<ToolCallResult> {
  const { agentRunId } = state.input;
  const started = await bookkeeping.agentStartFlowRun(args);
  if ("result" in started) return started.result;
  const { run } = started;
  const outcome = await runChildFlow(run, {
    trigger: "agent",
    parent: `agent run ${agentRunId}`,
    memo: { agent_run_id: agentRunId },
  });
  return bookkeeping.agentFinishFlowRun({
    ...args,
    runId: run.runId,
    status: outcome.status,
    output: outcome.output,
    error: outcome.error,
    startedAt: run.startedAt,
  });
}
