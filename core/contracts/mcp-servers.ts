// The MCP servers an agent may use (docs/agents.md, "MCP tools"): each named by its URL (Streamable
// HTTP), an optional credential by id, an allowlist of its tools and the tools whose calls wait
// for approval. Their tools reach the model as `<label>__<tool>`: our own tools' wire names
// (http_call, …) never hold "__", so the two cannot collide, nor can two servers' tools.
import { z } from "zod";
import { credentialIdSchema, endpointUrlSchema } from "./credential-types.js";

/** Servers one agent may name at most. */
export const MAX_MCP_SERVERS = 5;
/** Tools offered to the model from all servers at most; past it, the rest are left out (and said so). */
export const MAX_MCP_TOOLS = 40;
/** A tool's input schema, as JSON, at most: a larger one is left out. */
export const MAX_MCP_SCHEMA_BYTES = 16_384;
/** A tool's description as the model sees it, at most (cut past it). */
export const MAX_MCP_DESCRIPTION_CHARS = 1000;
/** The wire name's separator: never in our own tools' names. */
export const MCP_SEPARATOR = "__";

const toolName = z.string().min(1).max(128);

/** How the client reaches a server: MCP's Streamable HTTP, or the HTTP+SSE transport it replaced (2024-11-05). */
export const MCP_TRANSPORTS = ["streamable_http", "sse"] as const;

const mcpUrl = endpointUrlSchema("must not carry credentials: name a credential_id");

export const mcpServerSchema = z
  .strictObject({
    url: mcpUrl.meta({ description: "The server's Streamable HTTP endpoint (through the egress guard)" }),
    label: z
      .string()
      .regex(/^[a-z][a-z0-9]{0,15}$/, "lowercase letters and digits, starting with a letter, at most 16")
      .optional()
      .meta({
        description: "Prefix of its tools' names as the model sees them (<label>__<tool>); default mcp1, mcp2, …",
      }),
    transport: z.enum(MCP_TRANSPORTS).optional().meta({
      description:
        "streamable_http (the default, MCP's current transport: url is the endpoint) or sse (the older HTTP+SSE transport: url is the event stream's address, which names where messages go, on the same origin)",
    }),
    credential_id: credentialIdSchema.optional().meta({
      description:
        "A bearer, oauth2_client_credentials, api_key or headers credential sent with every request to the server (used by id, never shown)",
    }),
    tools: z
      .array(toolName)
      .max(100)
      .optional()
      .meta({ description: "The server's tools the agent may use (absent: all it lists)" }),
    approval_tools: z
      .array(toolName)
      .max(100)
      .optional()
      .meta({ description: "The server's tools whose every call waits for a member's approval" }),
  })
  .refine((server) => !server.tools || !server.approval_tools?.some((tool) => !server.tools!.includes(tool)), {
    message: "approval_tools must be among tools",
    path: ["approval_tools"],
  });

export const mcpServersSchema = z
  .array(mcpServerSchema)
  .max(MAX_MCP_SERVERS)
  .refine((servers) => new Set(servers.map((server, i) => server.label ?? defaultLabel(i))).size === servers.length, {
    message: "each server needs its own label",
  });

export type McpServerRequest = z.infer<typeof mcpServerSchema>;

/** Credential types an MCP server's requests may carry. */
export const MCP_CREDENTIAL_TYPES = ["bearer", "oauth2_client_credentials", "api_key", "headers"] as const;

const defaultLabel = (index: number) => `mcp${index + 1}`;

/** A server as the agent run's workflow and activities carry it. */
export interface McpServer {
  label: string;
  url: string;
  /** Absent: Streamable HTTP. */
  transport?: "sse";
  credentialId?: string;
  tools?: string[];
  approvalTools?: string[];
}

export function mcpServersOf(requests: readonly McpServerRequest[] | undefined): McpServer[] {
  return (requests ?? []).map((server, i) => ({
    label: server.label ?? defaultLabel(i),
    url: server.url,
    ...(server.transport === "sse" ? { transport: "sse" as const } : {}),
    ...(server.credential_id ? { credentialId: server.credential_id } : {}),
    ...(server.tools ? { tools: server.tools } : {}),
    ...(server.approval_tools?.length ? { approvalTools: server.approval_tools } : {}),
  }));
}

/** One tool of a server as offered to the model. */
export interface McpToolOffer {
  /** `<label>__<tool>`, as the model calls it. */
  wireName: string;
  /** The server's index in the run's mcpServers. */
  server: number;
  /** The tool's own name, as the server lists it. */
  tool: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** Its calls wait for a member's approval. */
  approval: boolean;
}

/** The name the model sees: label, separator, the tool's name in the characters providers allow. */
export const mcpWireName = (label: string, tool: string) =>
  `${label}${MCP_SEPARATOR}${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`.slice(0, 64);

/** A server's tools listed at the agent's start: those offered, or why none could be. */
export interface McpListResult {
  offers: McpToolOffer[];
  /** What the model is told about the server (unreachable, tools left out). */
  note?: string;
}
