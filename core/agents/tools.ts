// The agent's tools as the model sees them. Provider protocols allow only [A-Za-z0-9_-] in tool
// names, so `http.call` travels as `http_call` and is mapped back on the way in.
import { z } from "zod";
import type { ToolSpec } from "../ai/language-models.js";
import { AGENT_TOOLS, type AgentToolName } from "../contracts/agent-catalog.js";
import type { McpToolOffer } from "../contracts/mcp-servers.js";

export const wireName = (name: AgentToolName) => name.replace(".", "_");

export function toolNameOf(wire: string): AgentToolName | undefined {
  return AGENT_TOOLS.find((tool) => wireName(tool.name) === wire)?.name;
}

const memoryKey = z.string().min(1).max(200);

/** The arguments each tool takes; the model's arguments are checked against them. */
export const TOOL_ARGUMENTS = {
  "http.call": z.strictObject({
    method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]).default("GET"),
    url: z.string().min(1).max(4000),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.unknown().optional(),
  }),
  "flow.run": z.strictObject({
    flow_id: z.string().min(1).max(100),
    input: z.record(z.string(), z.unknown()).optional(),
  }),
  "log.write": z.strictObject({
    message: z.string().min(1).max(10_000),
    level: z.enum(["debug", "info", "warn", "error"]).default("info"),
    data: z.unknown().optional(),
  }),
  "memory.read": z.strictObject({ key: memoryKey }),
  "memory.write": z.strictObject({ key: memoryKey, value: z.unknown() }),
} satisfies Record<AgentToolName, z.ZodType>;

export type ToolArguments<T extends AgentToolName> = z.infer<(typeof TOOL_ARGUMENTS)[T]>;

/** The specs handed to the model for the allowed tools. */
export function toolSpecs(allowed: readonly AgentToolName[]): ToolSpec[] {
  return AGENT_TOOLS.filter((tool) => allowed.includes(tool.name)).map((tool) => {
    const schema = z.toJSONSchema(TOOL_ARGUMENTS[tool.name], { io: "input" }) as Record<string, unknown>;
    delete schema.$schema;
    return { name: wireName(tool.name), description: tool.description, parameters: schema };
  });
}

/** The specs of the MCP servers' tools offered, with the servers' own schemas (bounded when listed). */
export function mcpToolSpecs(offers: readonly McpToolOffer[] | undefined): ToolSpec[] {
  return (offers ?? []).map((offer) => ({
    name: offer.wireName,
    description: offer.description,
    parameters: offer.inputSchema,
  }));
}
