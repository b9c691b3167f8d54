// ai.agent: an agent run started from a flow. The workflow runs it as a child workflow (the
// agentRun workflow, one activity per model call and per tool call) and waits for its answer.
import { z } from "zod";
import { AGENT_TOOLS } from "../../contracts/agent-catalog.js";
import { AI_PROVIDERS } from "../../ai/language-models.js";
import { defineNode } from "../define-node.js";
import { modelFallbacksSchema } from "../../contracts/model-fallbacks.js";
import { credentialField } from "../shared/credential-field.js";
import { mcpServersSchema } from "../../contracts/mcp-servers.js";

const TOOL_NAMES = AGENT_TOOLS.map((tool) => tool.name) as [string, ...string[]];

export const aiAgentConfig = z.object({
  agent: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "lowercase letters, digits, _ and -")
    .default("assistant")
    .meta({ label: "Agent (preset or name; memory is kept per agent)" }),
  instructions: z
    .string()
    .min(1)
    .max(100_000)
    .meta({ label: "Instructions", placeholder: "Triage this ticket: {{ input.body }}" }),
  provider: z.enum(AI_PROVIDERS).optional().meta({ label: "Provider (default: the server's)" }),
  credential_id: credentialField("API key (default: the workspace's, else the server's)", ["ai_provider"]),
  model: z.string().min(1).max(200).optional().meta({ label: "Model (default: the server's)" }),
  fallbacks: modelFallbacksSchema
    .optional()
    .meta({ label: "Fallback models on a 429, 5xx or timeout ({provider, model, credential_id?})" }),
  system: z.string().max(100_000).optional().meta({ label: "System prompt (default: the preset's)" }),
  tools: z.array(z.enum(TOOL_NAMES)).optional().meta({ label: "Tools (default: the preset's)" }),
  approval_tools: z
    .array(z.enum(TOOL_NAMES))
    .optional()
    .meta({ label: "Tools whose calls wait for a member's approval (in the waits inbox)" }),
  mcp_servers: mcpServersSchema.optional().meta({
    label: "MCP servers whose tools the agent may use ({url, label?, credential_id?, tools?, approval_tools?})",
    // Where the workspace's credentials are sent: fixed by the flow, never chosen by run data.
    literal: true,
  }),
  max_steps: z.number().int().min(1).max(100).optional().meta({ label: "Most model calls" }),
  max_tokens: z.number().int().min(100).max(5_000_000).optional().meta({ label: "Most tokens" }),
  timeout_ms: z.number().int().min(1000).max(86_400_000).optional().meta({ label: "Time limit (ms)" }),
});
export type AiAgentConfig = z.infer<typeof aiAgentConfig>;

export const aiAgentNode = defineNode({
  type: "ai.agent",
  version: 1,
  name: "AI agent",
  category: "ai",
  description:
    "Runs a tool-using agent (http.call, flow.run, log.write, memory.read, memory.write) as a durable child workflow and outputs {agent_run_id, answer, reason, steps, usage}. The instructions are a template over earlier outputs; memory persists per workspace and agent name; calls of the tools in approval_tools wait for a member's approval in the waits inbox. Fails when the agent ends without an answer (step, token or time limit, provider error).",
  kind: "control",
  reachesOutside: true,
  config: aiAgentConfig,
});
