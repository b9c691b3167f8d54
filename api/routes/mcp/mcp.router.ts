// POST /api/mcp: the workspace's MCP endpoint (Streamable HTTP, stateless: every POST stands on its
// own, so any API process answers it). The SDK's Server and transport speak the protocol; the
// tools are the workspace's flows marked as tools (core/mcp/). The caller is an API token only (a
// program's credential; a session cookie is refused): the read scope reaches the endpoint and
// lists, the run scope also calls. A token sees its own workspace's tools only.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { IncomingMessage } from "node:http";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { DomainError } from "../../../core/errors.js";
import { UnknownTool, type McpToolsService } from "../../../core/mcp/mcp-tools.service.js";
import type { Actor } from "../../../core/workspaces/actor.js";
import type { Logger } from "../../../lib/logger.js";
import { requireTokenScope } from "../../http/bearer-token.js";
import type { OriginPolicy } from "../../http/origins.js";
import { HttpError } from "../../http/errors.js";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";

const SERVER_INFO = { name: "svc", version: "1.0.0" };

/** One JSON-RPC message: MCP's Streamable HTTP since 2025-06-18 has no batches, and none is taken. */
const mcpMessageSchema = z
  .looseObject({
    jsonrpc: z.literal("2.0"),
    method: z.string().max(200).optional(),
    id: z.union([z.string().max(200), z.number()]).optional(),
  })
  .meta({
    description: "One JSON-RPC 2.0 message of the Model Context Protocol (initialize, tools/list, tools/call, …)",
  });

/** The SDK's server for one request: tools/list and tools/call over the workspace's flows, as `actor`. */
function mcpServer({ tools, logger }: { tools: McpToolsService; logger: Logger }, actor: Actor): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: `Tools of the workspace "${actor.workspace.name}": each runs one of its flows and answers the run's output.`,
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: await tools.list(actor.workspace.workspaceId),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    try {
      return await tools.call(actor, request.params.name, request.params.arguments ?? {});
    } catch (error) {
      if (error instanceof UnknownTool) throw new McpError(ErrorCode.InvalidParams, error.message);
      // A refusal of the domain (a flow deactivated meanwhile, a quota, Temporal away): the model reads it.
      if (error instanceof DomainError) {
        return { content: [{ type: "text", text: error.message }], isError: true };
      }
      logger.error({ err: error, tool: request.params.name }, "MCP tool call failed");
      throw new McpError(ErrorCode.InternalError, "The tool call failed on the server");
    }
  });
  return server;
}

/**
 * A browser page of another origin never reaches the endpoint (MCP's transport rules: servers
 * validate Origin, against DNS rebinding): an Origin header must be one the API allows (the CORS
 * policy's: the dashboard's, the portal's, the API's own on loopback). Not merely the Host
 * header's: a rebound name is both the page's origin and the Host. Programs send none and pass.
 */
function refuseForeignOrigin(origins: OriginPolicy, origin: string | undefined) {
  if (origin === undefined || origins.isAllowed(origin)) return;
  throw new HttpError(
    403,
    "origin_refused",
    `Requests from the origin ${JSON.stringify(origin.slice(0, 200))} are refused`,
  );
}

export function createMcpRouter(
  deps: { tools: McpToolsService; logger: Logger; origins: OriginPolicy },
  docs: ApiDocs,
) {
  const { router, route } = documentedRouter(docs, "/api/mcp", "mcp");

  route(
    {
      method: "post",
      path: "/",
      scope: "read",
      summary:
        "The workspace's MCP endpoint (Streamable HTTP, stateless), for API tokens only: initialize, tools/list (flows marked as tools, and svc_run_status) with the read scope; tools/call (runs the flow, answers its output or its run id) with the run scope too",
      body: mcpMessageSchema,
      responses: {
        200: "The JSON-RPC answer (application/json)",
        202: "A notification or answer taken (no body)",
        400: "Not one JSON-RPC message (a batch, a bad body), or an unsupported MCP-Protocol-Version",
        401: "No API token (a session cookie is not taken here), or a revoked, expired or unknown one",
        403: "A token without the read scope, a tools/call by a token without the run scope, or an Origin header of a page the API does not allow (origin_refused)",
        406: "The client does not accept application/json and text/event-stream",
        413: "Body too large",
        429: "Over the token's API_TOKEN_RATE_LIMIT (Retry-After)",
      },
    },
    async (req, res) => {
      refuseForeignOrigin(deps.origins, req.headers.origin);
      const caller = req.input.auth;
      // A program's endpoint: a person's session (a browser's cookie) never reaches its tools.
      if (caller.kind !== "token") {
        throw new HttpError(
          401,
          "token_required",
          "The MCP endpoint takes a workspace API token (Authorization: Bearer), not a session",
          {},
          { "WWW-Authenticate": "Bearer" },
        );
      }
      if (req.input.body.method === "tools/call") requireTokenScope(caller, "run");
      const server = mcpServer(deps, caller);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on("close", () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req as IncomingMessage, res, req.input.body);
    },
  );

  // A stateless server has no stream to open (GET) nor session to end (DELETE): 405, which MCP
  // clients read as "no server stream".
  router.use((req, res, next) => {
    if (req.path !== "/") {
      next();
      return;
    }
    res.set("Allow", "POST");
    next(new HttpError(405, "method_not_allowed", "The MCP endpoint takes POST only (no sessions, no server stream)"));
  });

  return router;
}
