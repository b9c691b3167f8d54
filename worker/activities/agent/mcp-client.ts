// An agent's MCP client: one session per activity (Streamable HTTP through the SDK's Client), every
// request through the egress guard, the server's credential applied by host code and scrubbed from
// every error. Failures are sorted into those another attempt may cure (a server down, a 5xx, a
// timeout) and those it would meet again (refused address, 4xx, malformed answers).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport, SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { EgressLimitError, EgressRefusedError, EgressTimeoutError } from "../../../lib/egress/guarded-fetch.js";
import type { EgressGuard } from "../../../lib/egress/guarded-fetch.js";
import { MCP_CREDENTIAL_TYPES, type McpServer } from "../../../core/contracts/mcp-servers.js";
import type { NodeCredential, NodeCredentials } from "../../../core/nodes/define-node.js";
import { NodeError } from "../../../core/nodes/node-error.js";

/** One request to a server (and the session's start) at most. */
export const MCP_REQUEST_TIMEOUT_MS = 30_000;
/** Pages of tools/list read at most. */
const MAX_LIST_PAGES = 5;

/** A failure of a server, in words the model and the step log can show (no secret in them). */
export class McpCallError extends Error {
  override name = "McpCallError";
  constructor(
    message: string,
    /** Another attempt may succeed (server down, 5xx, 429, timeout). */
    readonly transient: boolean,
  ) {
    super(message);
  }
}

export interface McpClientDeps {
  egress: EgressGuard;
  /** The workspace's credentials, opened at call time. */
  credentials: (workspaceId: string) => NodeCredentials;
}

export interface McpSession {
  listTools(): Promise<Tool[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/**
 * Runs `use` with a session to `server`; any failure comes out as an McpCallError with the
 * credential's values scrubbed. `idempotencyKey` goes with every request as a header.
 */
export async function withMcpSession<T>(
  deps: McpClientDeps,
  workspaceId: string,
  server: McpServer,
  idempotencyKey: string,
  use: (session: McpSession) => Promise<T>,
): Promise<T> {
  let credential: NodeCredential | undefined;
  try {
    credential = server.credentialId
      ? await deps.credentials(workspaceId).resolve(server.credentialId, MCP_CREDENTIAL_TYPES)
      : undefined;
  } catch (error) {
    throw sorted(error, server);
  }
  const client = new Client({ name: "svc-agent", version: "1.0.0" });
  const transport = clientTransport(server, {
    fetch: guardedFetch(deps.egress, credential, server),
    requestInit: { headers: { "Idempotency-Key": idempotencyKey } },
  });
  const options = { timeout: MCP_REQUEST_TIMEOUT_MS, maxTotalTimeout: MCP_REQUEST_TIMEOUT_MS };
  try {
    await client.connect(transport, options);
    const result = await use({
      async listTools() {
        const tools: Tool[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < MAX_LIST_PAGES; page++) {
          const listed = await client.listTools(cursor ? { cursor } : {}, options);
          tools.push(...listed.tools);
          cursor = listed.nextCursor;
          if (!cursor) break;
        }
        return tools;
      },
      async callTool(name, args) {
        return (await client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
      },
      close: () => client.close(),
    });
    return credential ? credential.redact(result) : result;
  } catch (error) {
    const failure = sorted(error, server);
    // The server's answer may echo what it was sent: the message is scrubbed of the credential's values.
    throw credential ? new McpCallError(credential.redact(failure.message), failure.transient) : failure;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/**
 * The SDK's transport for the server's kind, every request through `fetch`. Over HTTP+SSE the
 * session's answers come on one event stream, which the egress guard's time limit bounds like any
 * response (MCP_REQUEST_TIMEOUT_MS from its opening); the address it names for messages must be on
 * its origin (the SDK refuses another), and goes through the same fetch.
 */
function clientTransport(
  server: Pick<McpServer, "url" | "transport">,
  options: { fetch: ReturnType<typeof guardedFetch>; requestInit: RequestInit },
) {
  const url = new URL(server.url);
  if (server.transport === "sse") return new SSEClientTransport(url, options);
  return new StreamableHTTPClientTransport(url, {
    ...options,
    // No background reconnects: a session lives for one activity.
    reconnectionOptions: {
      maxRetries: 0,
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 1,
    },
  });
}

/**
 * The egress guard's fetch with the credential applied to each request (and only its host's). A
 * 401 to a credential that can renew (OAuth client credentials: its cached token forgotten) is
 * tried once more with a new token; a second 401 is a clear, final error.
 */
function guardedFetch(egress: EgressGuard, credential: NodeCredential | undefined, server: Pick<McpServer, "label">) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const target = new URL(url);
    const send = async () => {
      const headers = new Headers(init?.headers);
      await credential?.apply({ url: target, headers });
      return egress.fetch(target, {
        ...init,
        headers,
        timeoutMs: MCP_REQUEST_TIMEOUT_MS,
        ...(credential ? { sensitiveHeaders: credential.headerNames } : {}),
      });
    };
    const response = await send();
    if (response.status !== 401 || !credential?.renew()) return response;
    await response.body?.cancel().catch(() => undefined);
    const again = await send();
    if (again.status !== 401) return again;
    await again.body?.cancel().catch(() => undefined);
    throw new McpCallError(
      `MCP server ${server.label}: refused the credential (HTTP 401), also with a newly fetched OAuth token`,
      false,
    );
  };
}

const TRANSIENT_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);

/** The error as an McpCallError: transient or not, its message prefixed by the server's label. */
export function sorted(error: unknown, server: Pick<McpServer, "label">): McpCallError {
  if (error instanceof McpCallError) return error;
  const say = (text: string, transient: boolean) =>
    new McpCallError(`MCP server ${server.label}: ${text.slice(0, 1000)}`, transient);
  if (error instanceof EgressRefusedError) return say(`refused by the egress guard: ${error.message}`, false);
  if (error instanceof EgressLimitError) return say(error.message, false);
  if (error instanceof EgressTimeoutError) return say(`no answer in time (${error.message})`, true);
  if (error instanceof NodeError) return say(error.message, error.retryable);
  if (error instanceof StreamableHTTPError || error instanceof SseError) {
    const status = error.code ?? -1;
    if (status === -1) return say(`malformed answer: ${error.message}`, false);
    return say(`answered HTTP ${status}: ${error.message}`, TRANSIENT_STATUSES.has(status) || status >= 500);
  }
  if (error instanceof McpError) {
    const transient = error.code === ErrorCode.RequestTimeout || error.code === ErrorCode.ConnectionClosed;
    return say(
      error.code === ErrorCode.RequestTimeout ? `no answer in time (${error.message})` : error.message,
      transient,
    );
  }
  if (error instanceof SyntaxError || (error as Error)?.name === "ZodError") {
    return say(`malformed answer: ${(error as Error).message}`, false);
  }
  // undici's "fetch failed": refused or reset connections.
  if (error instanceof TypeError) {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    return say(`unreachable (${cause ?? error.message})`, true);
  }
  return say(error instanceof Error ? error.message : String(error), false);
}
