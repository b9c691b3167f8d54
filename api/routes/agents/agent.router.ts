// /api/agent: agent runs (POST /run, GET /runs/{id}, its text as written at /runs/{id}/events,
// POST /runs/{id}/cancel), the agent log and
// agent memory. The agent catalog itself is GET /api/agents.
import { z } from "zod";
import { auditContext, auditSource } from "../../http/audit-context.js";
import { authorize } from "../../http/authenticate.middleware.js";
import { requireTokenScope } from "../../http/bearer-token.js";
import { decodeCursor, isTimeIdCursor, keysetPage } from "../../http/cursor.js";
import { documentedRouter, type ApiDocs, type DeclareRoute } from "../../http/openapi.js";
import {
  agentLogEntrySchema,
  agentLogsQuerySchema,
  agentMemoryEntrySchema,
  agentRunDetailSchema,
  agentRunEndedSchema,
  agentRunIdSchema,
  agentRunSchema,
  agentRunStartedSchema,
  readMemoryQuerySchema,
  runAgentSchema,
  writeMemorySchema,
} from "./agent.schema.js";
import type { AgentService } from "../../../core/agents/agent.service.js";
import { agentRunView } from "../../../core/agents/agent-views.js";
import { agentEventRoute, type AgentEventDeps } from "./agent-events.router.js";

const runParams = z.object({ id: agentRunIdSchema });
const isLogCursor = isTimeIdCursor("c");
const isMemoryCursor = (value: unknown): value is { k: string } =>
  typeof value === "object" && value !== null && typeof (value as { k?: unknown }).k === "string";

export function createAgentRouter(deps: AgentEventDeps, docs: ApiDocs) {
  const { agents } = deps;
  const { router, route } = documentedRouter(docs, "/api/agent", "agents");
  agentRunStartRoute(route, agents);
  agentRunRoutes(route, agents);
  agentEventRoute(route, deps);
  agentLogRoutes(route, agents);
  agentMemoryRoutes(route, agents);
  return router;
}

/** POST /run: the answer when the run ends within `wait`, else 202 and where to follow it. */
function agentRunStartRoute(route: DeclareRoute, agents: AgentService) {
  route(
    {
      method: "post",
      path: "/run",
      scope: "run",
      summary: "Run an agent: a durable loop of model and tool calls; with wait, the answer if it comes in time",
      body: runAgentSchema,
      absentBodyIsEmpty: true,
      responses: {
        200: { description: "Ended within wait", schema: agentRunEndedSchema },
        202: { description: "Started; follow status_url", schema: agentRunStartedSchema },
        400: "Invalid body",
        403: "Role too low, or an API token without the write scope naming an MCP server's credential",
        503: "Temporal did not accept the run",
      },
    },
    authorize("runs:write"),
    async (req, res) => {
      const caller = req.input.auth;
      // Naming where a workspace credential is sent (an MCP server's address and its credential)
      // is what saving a flow does: a token needs write for it, as for a node test (docs/security.md).
      if (req.input.body.mcp_servers?.some((server) => server.credential_id)) requireTokenScope(caller, "write");
      const { run, ended } = await agents.start(caller, req.input.body);
      const view = agentRunView(run);
      const statusUrl = `/api/agent/runs/${run.id}`;
      res.location(statusUrl);
      if (!ended) {
        res.status(202).json({ agent_run_id: run.id, status: run.status, status_url: statusUrl });
        return;
      }
      res.status(200).json({
        agent_run_id: run.id,
        status: view.status,
        reason: view.reason,
        answer: view.answer,
        error: view.error,
        steps: view.steps,
        usage: view.usage,
        status_url: statusUrl,
      });
    },
  );
}

/** GET /runs/{id}, POST /runs/{id}/cancel. */
function agentRunRoutes(route: DeclareRoute, agents: AgentService) {
  route(
    {
      method: "get",
      path: "/runs/:id",
      scope: "read",
      summary: "An agent run: status, final answer, usage, and every model and tool step",
      params: runParams,
      responses: {
        200: { description: "The run and its steps", schema: agentRunDetailSchema },
        404: "No such agent run",
      },
    },
    async (req, res) => {
      res.json(await agents.get(req.input.workspaceId, req.input.params.id));
    },
  );

  route(
    {
      method: "post",
      path: "/runs/:id/cancel",
      scope: "run",
      summary: "Cancel a running agent run (it ends as cancelled)",
      params: runParams,
      responses: {
        202: { description: "Cancellation requested", schema: z.object({ agent_run: agentRunSchema }) },
        403: "Role too low",
        404: "No such agent run",
        409: "Not running",
      },
    },
    authorize("runs:write"),
    async (req, res) => {
      const { workspaceId, params } = req.input;
      res.status(202).json({ agent_run: await agents.cancel(workspaceId, params.id, auditContext(req)) });
    },
  );
}

/** GET /logs: the agent log. */
function agentLogRoutes(route: DeclareRoute, agents: AgentService) {
  route(
    {
      method: "get",
      path: "/logs",
      scope: "read",
      summary: "The agent log, newest first: log.write entries and run starts and ends",
      query: agentLogsQuerySchema,
      responses: {
        200: {
          description: "A page of entries",
          schema: z.object({ items: z.array(agentLogEntrySchema), next_cursor: z.string().nullable() }),
        },
        400: "Bad query",
      },
    },
    async (req, res) => {
      const { agent_run_id, agent, level, limit, cursor } = req.input.query;
      const after = decodeCursor(cursor, isLogCursor);
      const items = await agents.logs(req.input.workspaceId, {
        agentRunId: agent_run_id,
        agent,
        level,
        limit: limit + 1,
        after: after && { time: new Date(after.c), id: after.id },
      });
      const { page, next_cursor } = keysetPage(items, limit, (last) => ({ c: last.created_at, id: last.id }));
      res.json({ items: page, next_cursor });
    },
  );
}

/** GET and POST /memory: an agent's memory. */
function agentMemoryRoutes(route: DeclareRoute, agents: AgentService) {
  route(
    {
      method: "get",
      path: "/memory",
      scope: "read",
      summary: "An agent's persistent memory: a page of keys in key order (all, or by prefix), or one key",
      query: readMemoryQuerySchema,
      responses: {
        200: {
          description: "A page of keys, or the one key asked for",
          schema: z.union([
            z.object({ items: z.array(agentMemoryEntrySchema), next_cursor: z.string().nullable() }),
            agentMemoryEntrySchema,
          ]),
        },
        400: "Bad query",
        404: "No such key",
      },
    },
    async (req, res) => {
      const { agent, key, prefix, limit, cursor } = req.input.query;
      if (key !== undefined) {
        res.json(await agents.readMemoryKey(req.input.workspaceId, agent, key));
        return;
      }
      const after = decodeCursor(cursor, isMemoryCursor);
      const items = await agents.listMemory(req.input.workspaceId, {
        agent,
        prefix,
        limit: limit + 1,
        afterKey: after?.k,
      });
      const { page, next_cursor } = keysetPage(items, limit, (last) => ({ k: last.key }));
      res.json({ items: page, next_cursor });
    },
  );

  route(
    {
      method: "post",
      path: "/memory",
      scope: "run",
      summary: "Write a value to an agent's memory (agent_run_id null: written through the API)",
      body: writeMemorySchema,
      absentBodyIsEmpty: true,
      responses: {
        200: { description: "The entry", schema: agentMemoryEntrySchema },
        400: "Invalid body",
        403: "Role too low",
        413: "Value over 256 KiB",
      },
    },
    authorize("runs:write"),
    async (req, res) => {
      const { body, auth } = req.input;
      res.json(await agents.writeMemory(auth, { ...body, value: body.value }, auditSource(req)));
    },
  );
}
