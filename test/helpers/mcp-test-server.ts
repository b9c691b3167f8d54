// An MCP server on loopback built with the SDK's own server classes (McpServer and the Streamable
// HTTP transport, stateless: a fresh pair per request, as the SDK's examples do), standing in for a
// third party's; and one of the older HTTP+SSE transport (startMcpSseTestServer). It checks a bearer token when given one, records every tools/call, and lets a test
// answer a call itself first (a 500, a malformed body, a dropped connection).
import type { IncomingMessage, ServerResponse } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { startLoopbackServer, type LoopbackServer } from "./loopback-server.js";

export interface SeenCall {
  tool: string;
  args: unknown;
  idempotencyKey?: string;
}

export interface McpTestServer extends LoopbackServer {
  /** The MCP endpoint: <url>/mcp. */
  endpoint: string;
  /** Every tools/call received, oldest first. */
  calls: SeenCall[];
  /** Requests refused for a missing or wrong bearer token. */
  unauthorized: number;
  /** Answers a tools/call before the SDK does when it returns true. */
  intercept?: (call: SeenCall, req: IncomingMessage, res: ServerResponse) => boolean;
}

type JsonRpc = { method?: string; params?: { name?: string; arguments?: unknown } };

export async function startMcpTestServer(options: {
  /** Registers the server's tools. */
  tools: (mcp: McpServer) => void;
  /** Required as `Authorization: Bearer <token>` when given; a function: the tokens it accepts. */
  token?: string | ((token: string) => boolean);
}): Promise<McpTestServer> {
  const state = { calls: [] as SeenCall[], unauthorized: 0 } as McpTestServer;
  const { token } = options;
  const authorized = (header: string | undefined) =>
    token === undefined ||
    (typeof token === "string"
      ? header === `Bearer ${token}`
      : !!header?.startsWith("Bearer ") && token(header.slice(7)));
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!authorized(req.headers.authorization)) {
      state.unauthorized++;
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"unauthorized"}');
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "POST" }).end();
      return;
    }
    const body = await jsonBody(req);
    const message = body as JsonRpc;
    if (message?.method === "tools/call") {
      const key = req.headers["idempotency-key"];
      const call: SeenCall = {
        tool: String(message.params?.name),
        args: message.params?.arguments,
        ...(typeof key === "string" ? { idempotencyKey: key } : {}),
      };
      state.calls.push(call);
      if (state.intercept?.(call, req, res)) return;
    }
    const mcp = new McpServer({ name: "test-mcp", version: "1.0.0" });
    options.tools(mcp);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  };
  const server = await startLoopbackServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  return Object.assign(state, server, { endpoint: `${server.url}/mcp` });
}

function jsonBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch (error) {
        reject(error as Error);
      }
    });
    req.on("error", reject);
  });
}

export interface McpSseTestServer extends LoopbackServer {
  /** The stream's address (GET): <url>/sse; messages go to the address it names (<url>/messages). */
  endpoint: string;
  /** Every tools/call received, oldest first. */
  calls: SeenCall[];
  /** Requests refused for a missing or wrong bearer token. */
  unauthorized: number;
  /** Streams opened. */
  streams: number;
}

/**
 * An MCP server of the older HTTP+SSE transport (the SDK's SSEServerTransport): GET /sse opens a
 * session's event stream, which names the address its messages are POSTed to.
 */
export async function startMcpSseTestServer(options: {
  tools: (mcp: McpServer) => void;
  token?: string;
}): Promise<McpSseTestServer> {
  const state = { calls: [] as SeenCall[], unauthorized: 0, streams: 0 } as McpSseTestServer;
  const sessions = new Map<string, SSEServerTransport>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (options.token !== undefined && req.headers.authorization !== `Bearer ${options.token}`) {
      state.unauthorized++;
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"unauthorized"}');
      return;
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "GET" && url.pathname === "/sse") {
      state.streams++;
      const transport = new SSEServerTransport("/messages", res);
      sessions.set(transport.sessionId, transport);
      res.on("close", () => sessions.delete(transport.sessionId));
      const mcp = new McpServer({ name: "test-mcp-sse", version: "1.0.0" });
      options.tools(mcp);
      await mcp.connect(transport);
      return;
    }
    const transport = sessions.get(url.searchParams.get("sessionId") ?? "");
    if (req.method !== "POST" || url.pathname !== "/messages" || !transport) {
      res.writeHead(404).end();
      return;
    }
    const body = await jsonBody(req);
    const message = body as JsonRpc;
    if (message?.method === "tools/call") {
      const key = req.headers["idempotency-key"];
      state.calls.push({
        tool: String(message.params?.name),
        args: message.params?.arguments,
        ...(typeof key === "string" ? { idempotencyKey: key } : {}),
      });
    }
    await transport.handlePostMessage(req, res, body);
  };
  const server = await startLoopbackServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  return Object.assign(state, server, { endpoint: `${server.url}/sse` });
}
