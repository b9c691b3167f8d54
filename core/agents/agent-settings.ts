// What an agent run will use, from a request (API or ai.agent node) over the agent's preset and
// the server's defaults. Pure: the API and the worker share it.
import type { AgentLimits } from "../contracts/agent-run.js";
import type { AiProvider } from "../ai/providers.js";
import { AGENT_PRESETS, AGENT_TOOLS, type AgentToolName } from "../contracts/agent-catalog.js";
import { mcpServersOf, type McpServerRequest } from "../contracts/mcp-servers.js";
import type { ModelFallback } from "../ai/model-fallbacks.js";

const DEFAULT_SYSTEM =
  "You are a careful automation agent. Use the tools when they help; answer concisely when you are done.";

export interface AgentRequest {
  agent: string;
  instructions?: string;
  input?: string | Record<string, unknown>;
  tools?: string[];
  /** Tools (of the run's) whose calls wait for a member's approval. */
  approval_tools?: string[];
  provider?: AiProvider;
  model?: string;
  system?: string;
  limits?: Partial<AgentLimits>;
  /** MCP servers whose tools the agent may use too (core/contracts/mcp-servers.ts). */
  mcp_servers?: McpServerRequest[];
  /** Models tried in order when a model call fails in the end on a 429, a 5xx or a timeout (core/ai/model-fallbacks.ts). */
  fallbacks?: ModelFallback[];
}

export function resolveAgentSettings(request: AgentRequest, defaults: { provider: AiProvider; model: string }) {
  const preset = AGENT_PRESETS.find((p) => p.id === request.agent);
  const base = preset?.limits ?? AGENT_PRESETS[0]!.limits;
  const input =
    typeof request.input === "string" ? request.input : request.input ? JSON.stringify(request.input) : undefined;
  return {
    agentId: request.agent,
    provider: request.provider ?? defaults.provider,
    model: request.model ?? defaults.model,
    system: request.system ?? preset?.system_prompt ?? DEFAULT_SYSTEM,
    instructions: [request.instructions, input === undefined ? undefined : `Input:\n${input}`]
      .filter(Boolean)
      .join("\n\n"),
    tools: (request.tools ?? preset?.tools ?? AGENT_TOOLS.map((tool) => tool.name)) as AgentToolName[],
    approvalTools: (request.approval_tools ?? []) as AgentToolName[],
    mcpServers: mcpServersOf(request.mcp_servers),
    fallbacks: request.fallbacks ?? [],
    limits: {
      max_steps: request.limits?.max_steps ?? base.max_steps,
      max_tokens: request.limits?.max_tokens ?? base.max_tokens,
      timeout_ms: request.limits?.timeout_ms ?? base.timeout_ms,
    } satisfies AgentLimits,
  };
}

export type AgentSettings = ReturnType<typeof resolveAgentSettings>;

/** Why the settings' approval tools cannot be: a tool the run does not have, or undefined. */
export function approvalToolsProblem(settings: Pick<AgentSettings, "tools" | "approvalTools">): string | undefined {
  const missing = settings.approvalTools.filter((tool) => !settings.tools.includes(tool));
  if (missing.length === 0) return undefined;
  return `approval_tools: ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not among the run's tools (${settings.tools.join(", ") || "none"})`;
}

/** Output tokens one model call may ask for at most. */
export const MAX_TOKENS_PER_CALL = 4096;
