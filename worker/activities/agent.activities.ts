// The activities of an agent run: one per model call, one per tool call, and the end. Each
// records its step once per (agent run, number), so a retried attempt never writes twice. The
// factory only wires: each activity lives in agent/, a function taking what it uses.
import { log } from "@temporalio/activity";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import type { PrismaClient } from "../../lib/db.js";
import type { EgressGuard } from "../../lib/egress/guarded-fetch.js";
import { createJsonSeal } from "../../lib/crypto/sealed-json.js";
import type { LanguageModels } from "../../core/ai/language-models.js";
import type {
  AgentRunResult,
  ApprovalFinishInput,
  ApprovalStartInput,
  McpListInput,
  McpToolCallInput,
  BudgetWaitFinishInput,
  BudgetWaitStartInput,
  ModelCallInput,
  ToolCallInput,
} from "../../core/contracts/agent-run.js";
import type { NodeRegistry } from "../../core/nodes/registry.js";
import { createBlobStore } from "../../core/runs/records/blobs.js";
import type { AgentActivityContext } from "./agent/agent-context.js";
import { agentFinishApproval, agentStartApproval } from "./agent/approvals.js";
import { agentFinishBudgetWait, agentStartBudgetWait } from "./agent/budget-waits.js";
import { finishAgentRun } from "./agent/finish-agent-run.js";
import { agentFinishFlowRun, agentStartFlowRun, type FlowRunFinishInput } from "./agent/flow-run-tool.js";
import { agentListMcpTools, agentMcpToolCall } from "./agent/mcp-tools.js";
import { agentModelCall } from "./agent/model-call.js";
import { agentToolCall } from "./agent/tool-call.js";

export interface AgentActivityDeps {
  prisma: PrismaClient;
  clock: Clock;
  nodes: NodeRegistry;
  config: Pick<Config, "RUN_OUTPUT_OFFLOAD_BYTES" | "SVC_ENCRYPTION_KEY" | "RUN_TREE_MAX_DEPTH" | "RUN_TREE_MAX_RUNS">;
  egress: EgressGuard;
  models: LanguageModels;
  apiKeyFor: AgentActivityContext["apiKeyFor"];
  credentialsFor: AgentActivityContext["credentialsFor"];
  metrics?: AgentActivityContext["metrics"];
}

export function createAgentActivities(deps: AgentActivityDeps) {
  const { prisma, clock } = deps;
  const seal = createJsonSeal(deps.config.SVC_ENCRYPTION_KEY);
  const context: AgentActivityContext = {
    ...deps,
    seal,
    blobs: createBlobStore({ prisma, offloadBytes: deps.config.RUN_OUTPUT_OFFLOAD_BYTES, seal }),
    childRuns: {
      clock,
      seal,
      nodes: deps.nodes,
      limits: deps.config,
      warn: (message, fields) => log.warn(message, fields),
    },
  };
  return {
    /** One model call with the conversation so far. */
    agentModelCall: (input: ModelCallInput) => agentModelCall(context, input),
    /** One tool call (not flow.run). */
    agentToolCall: (input: ToolCallInput) => agentToolCall(context, input),
    /** An MCP server's tools, listed at the agent's start. */
    agentListMcpTools: (input: McpListInput) => agentListMcpTools(context, input),
    /** One call of an MCP server's tool. */
    agentMcpToolCall: (input: McpToolCallInput) => agentMcpToolCall(context, input),
    /** flow.run, first half: the child run recorded. */
    agentStartFlowRun: (input: ToolCallInput) => agentStartFlowRun(context, input),
    /** flow.run, second half: the child run's outcome. */
    agentFinishFlowRun: (input: FlowRunFinishInput) => agentFinishFlowRun(context, input),
    /** A call of a tool that needs approval: its pending wait. */
    agentStartApproval: (input: ApprovalStartInput) => agentStartApproval(context, input),
    /** The end of an approval: its wait closed and its step recorded. */
    agentFinishApproval: (input: ApprovalFinishInput) => agentFinishApproval(context, input),
    /** A model call a budget held back: its wait (reason budget). */
    agentStartBudgetWait: (input: BudgetWaitStartInput) => agentStartBudgetWait(context, input),
    /** The end of a budget wait: its record closed. */
    agentFinishBudgetWait: (input: BudgetWaitFinishInput) => agentFinishBudgetWait(context, input),
    /** Ends the agent run once. */
    finishAgentRun: (result: AgentRunResult & { workspaceId: string; agentId: string }) =>
      finishAgentRun(context, result),
  };
}

export type AgentActivities = ReturnType<typeof createAgentActivities>;
