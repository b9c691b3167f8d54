// What the API, the agentRun workflow and its activities exchange.
import type { AiProvider, ChatMessage, TokenUsage, ToolCall } from "../ai/language-models.js";
import type { ModelFallback } from "../ai/model-fallbacks.js";
import type { AgentToolName } from "./agent-catalog.js";
import type { McpServer, McpToolOffer } from "./mcp-servers.js";
import type { BudgetHold, WaitDeciders, WaitDecision } from "./waits.js";

export const AGENT_RUN_WORKFLOW = "agentRun";

export interface AgentLimits {
  /** Model calls at most. */
  max_steps: number;
  /** Input plus output tokens over all model calls at most. */
  max_tokens: number;
  /** Wall-clock time of the whole agent run at most. */
  timeout_ms: number;
}

export interface AgentRunInput {
  agentRunId: string;
  workspaceId: string;
  agentId: string;
  provider: AiProvider;
  model: string;
  system: string;
  instructions: string;
  tools: AgentToolName[];
  limits: AgentLimits;
  maxTokensPerCall: number;
  /** An ai_provider credential of the workspace for the model calls (ai.agent's credential_id). */
  credentialId?: string;
  /** Models tried in order when a model call fails in the end on a 429, a 5xx or a timeout; absent in older runs. */
  fallbacks?: ModelFallback[];
  /**
   * Tools whose calls wait for a member's approval (a wait of the waits table, decided through
   * decideWaitUpdate). Absent in runs started before approvals, which replay as they ran.
   */
  approvalTools?: AgentToolName[];
  /** MCP servers whose tools the agent may use; absent in runs started before them. */
  mcpServers?: McpServer[];
}

export type AgentEndReason =
  | "answered"
  | "max_steps"
  | "max_tokens"
  | "timeout"
  | "provider_error"
  | "cancelled"
  | "workflow_closed"
  /** An admin stopped it at a budget (a wait with reason budget): it ends cancelled. */
  | "budget";

export interface AgentRunResult {
  agentRunId: string;
  status: "success" | "failed" | "cancelled";
  reason: AgentEndReason;
  answer: string | null;
  error?: string;
  steps: number;
  usage: TokenUsage;
}

/** The agentRun workflow's signature, for starting it as a child by name. */
export type AgentRunWorkflow = (input: AgentRunInput) => Promise<AgentRunResult>;

export interface ModelCallInput {
  agentRunId: string;
  workspaceId: string;
  number: number;
  provider: AiProvider;
  model: string;
  system: string;
  messages: ChatMessage[];
  tools: AgentToolName[];
  maxTokens: number;
  timeoutMs: number;
  /** See AgentRunInput.credentialId; absent: the workspace's key, else the server's. */
  credentialId?: string;
  /** See AgentRunInput.fallbacks. */
  fallbacks?: ModelFallback[];
  /** The MCP servers' tools offered besides `tools` (listed at the agent's start). */
  mcpTools?: McpToolOffer[];
  /** The budget wait an admin approved for this call: it runs once though a budget is reached. */
  budgetPass?: string;
}

export interface ModelCallResult {
  text: string;
  toolCalls: ToolCall[];
  usage: TokenUsage;
  /** A budget is reached: the call was not made, the run waits for an admin (nothing else is set then). */
  budget?: BudgetHold;
}

/** A model call a budget held back: its wait recorded before the workflow waits for a decision. */
export interface BudgetWaitStartInput {
  agentRunId: string;
  workspaceId: string;
  /** The model call's step number (the wait's id derives from it). */
  number: number;
  hold: BudgetHold;
  /** What is left of the agent's time: the wait expires with it. */
  timeoutMs: number;
}

/** The end of a budget wait: decided (approved once, or stopped) or expired with the agent's time. */
export interface BudgetWaitFinishInput {
  waitId: string;
  status: "decided" | "expired";
  decision?: Extract<WaitDecision, "approved" | "rejected">;
  comment?: string;
  decidedBy?: { id: string; name: string };
  decidedAt?: string;
}

export interface ToolCallInput {
  agentRunId: string;
  workspaceId: string;
  agentId: string;
  number: number;
  call: ToolCall;
  allowed: AgentToolName[];
}

/** What goes back to the model: JSON text, flagged when it is an error. */
export interface ToolCallResult {
  content: string;
  isError: boolean;
}

/** An MCP server's tools listed at the agent's start, under the next step number. */
export interface McpListInput {
  agentRunId: string;
  workspaceId: string;
  number: number;
  server: McpServer;
  serverIndex: number;
  /** Tools the earlier servers offered: the total is bounded (MAX_MCP_TOOLS). */
  offeredBefore: number;
}

/** A call of an MCP server's tool: the model's call, the server and the tool's own name. */
export interface McpToolCallInput extends ToolCallInput {
  server: McpServer;
  tool: string;
}

/** A tool call that needs approval: recorded as a pending wait before the tool runs. */
export interface ApprovalStartInput extends ToolCallInput {
  /** One of ours, or an MCP server's tool as `<label>__<tool>` (with `mcp` set). */
  tool: string;
  /** Set for an MCP server's tool: its arguments are checked by the server, here only as a JSON object. */
  mcp?: true;
  /** What is left of the agent's time: the wait expires with it. */
  timeoutMs: number;
}

/** The pending wait, or the error the model gets back at once (arguments the tool refuses). */
export type ApprovalStart =
  | {
      waitId: string;
      deciders: WaitDeciders;
      /** When the wait was recorded (the approval step's start). */
      since: string;
    }
  | { result: ToolCallResult };

/** The end of an approval: the wait closed and the approval step recorded, in one commit. */
export interface ApprovalFinishInput extends ApprovalStartInput {
  waitId: string;
  since: string;
  status: "decided" | "expired";
  decision?: Extract<WaitDecision, "approved" | "rejected">;
  comment?: string;
  decidedBy?: { id: string; name: string };
  decidedAt?: string;
}
