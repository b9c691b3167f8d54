// What one agent run holds while it loops: the conversation, the tokens used, the model calls
// made, the last step number given out, and the tool calls awaiting approval.
import type { ChatMessage, TokenUsage } from "../../../core/ai/language-models.js";
import type { AgentRunInput, ToolCallInput } from "../../../core/contracts/agent-run.js";
import type { McpToolOffer } from "../../../core/contracts/mcp-servers.js";
import type { WaitState } from "../wait-decisions.js";

export interface AgentRunState {
  readonly input: AgentRunInput;
  /** Workflow time by which the run must end. */
  readonly deadline: number;
  readonly usage: TokenUsage;
  readonly messages: ChatMessage[];
  /** The last step number given out: model calls, approvals and tool calls each take the next. */
  number: number;
  modelCalls: number;
  /** Tool calls awaiting approval, by wait id: decided through decideWaitUpdate. */
  readonly waits: Map<string, WaitState>;
  /** The MCP servers' tools offered to the model (listed at the start). */
  readonly mcpTools: McpToolOffer[];
}

export function createAgentState(input: AgentRunInput): AgentRunState {
  return {
    input,
    deadline: Date.now() + input.limits.timeout_ms,
    usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
    messages: [{ role: "user", content: input.instructions }],
    number: 0,
    modelCalls: 0,
    waits: new Map(),
    mcpTools: [],
  };
}

/** The agent's time left, in ms (0 or less: it ran out). */
export const timeLeft = (state: AgentRunState) => state.deadline - Date.now();

/** A tool call's activity input, under the next step number. */
export function toolInput(state: AgentRunState, call: ToolCallInput["call"]): ToolCallInput {
  const { input } = state;
  return {
    agentRunId: input.agentRunId,
    workspaceId: input.workspaceId,
    agentId: input.agentId,
    number: ++state.number,
    call,
    allowed: input.tools,
  };
}
