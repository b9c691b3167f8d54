import { z } from "zod";
import { idempotencyOf } from "../../http/idempotency.js";
import { auditContext, auditSource } from "../../http/audit-context.js";
import { authorize } from "../../http/authenticate.middleware.js";
import { decodeCursor, isTimeIdCursor, keysetPage } from "../../http/cursor.js";
import { documentedRouter, type ApiDocs, type DeclareRoute } from "../../http/openapi.js";
import {
  createFlowSchema,
  flowDetailSchema,
  flowIdSchema,
  flowsPageItemSchema,
  flowVersionItemSchema,
  flowVersionSchema,
  listFlowsQuerySchema,
  listVersionsQuerySchema,
  startRunResponseSchema,
  startRunSchema,
  testRunResponseSchema,
  testRunSchema,
  publishFlowSchema,
  updateFlowSchema,
  versionNumberSchema,
} from "./flows.schema.js";
import type { FlowsService } from "../../../core/flows/flows.service.js";
import type { RunsService } from "../../../core/runs/runs.service.js";
import type { RateLimiter } from "../../../core/rate-limiter.js";
import type { Config } from "../../../lib/config.js";

const flowParams = z.object({ id: flowIdSchema });
const versionParams = z.object({ id: flowIdSchema, version: versionNumberSchema });
const isListCursor = isTimeIdCursor("u");
const isVersionCursor = (value: unknown): value is { v: number } =>
  typeof value === "object" && value !== null && Number.isSafeInteger((value as { v?: unknown }).v);

interface FlowsRouterDeps {
  flows: FlowsService;
  runs: RunsService;
}

/** Mounted at /api/flows: the flows, their versions and hooks. */
export function createFlowsRouter({ flows }: Pick<FlowsRouterDeps, "flows">, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/flows", "flows");
  flowCollectionRoutes(route, flows);
  flowRoutes(route, flows);
  flowDuplicateRoute(route, flows);
  flowPublishRoute(route, flows);
  flowVersionRoutes(route, flows);
  flowHookRoutes(route, flows);
  return router;
}

/**
 * Mounted at /api/workflows: starting a run, at the path the interface names (which calls flows
 * "workflows"); the one route there, so that every other flow route has one path.
 */
export function createFlowRunRouter({ runs }: Pick<FlowsRouterDeps, "runs">, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/workflows", "flows");
  flowRunRoute(route, runs);
  return router;
}

/** GET and POST /: the workspace's flows, and a new one. */
function flowCollectionRoutes(route: DeclareRoute, flows: FlowsService) {
  route(
    {
      method: "get",
      path: "/",
      scope: "read",
      summary: "List flows, newest first, each with its last run, with a cursor",
      query: listFlowsQuerySchema,
      responses: {
        200: {
          description: "A page of flows",
          schema: z.object({ items: z.array(flowsPageItemSchema), next_cursor: z.string().nullable() }),
        },
        400: "Bad query",
      },
    },
    async (req, res) => {
      const { status, q, tag, limit, cursor } = req.input.query;
      const after = decodeCursor(cursor, isListCursor);
      const items = await flows.list(req.input.workspaceId, {
        status,
        q,
        tag,
        limit: limit + 1,
        after: after && { time: new Date(after.u), id: after.id },
      });
      const { page, next_cursor } = keysetPage(items, limit, (last) => ({ u: last.updated_at, id: last.id }));
      res.json({ items: page, next_cursor });
    },
  );

  route(
    {
      method: "post",
      path: "/",
      scope: "write",
      summary: "Create a flow from a definition or a template",
      body: createFlowSchema,
      responses: {
        201: { description: "Created", schema: flowDetailSchema },
        400: "Invalid body or definition (details lists every problem)",
        403: "Role too low",
        404: "No such template",
      },
    },
    authorize("flows:write"),
    async (req, res) => {
      const flow = await flows.create(req.input.auth, req.input.body, auditSource(req));
      res.status(201).location(`/api/flows/${flow.id}`).json(flow);
    },
  );
}

/** /{id}: one flow (read, replaced, deleted). */
function flowRoutes(route: DeclareRoute, flows: FlowsService) {
  route(
    {
      method: "get",
      path: "/:id",
      scope: "read",
      summary: "A flow with its definition",
      params: flowParams,
      responses: { 200: { description: "The flow", schema: flowDetailSchema }, 404: "No such flow" },
    },
    async (req, res) => {
      res.json(await flows.get(req.input.workspaceId, req.input.params.id));
    },
  );

  route(
    {
      method: "put",
      path: "/:id",
      scope: "write",
      summary:
        "Update a flow: name, description, status and tags change at once; a changed definition becomes a new version, published at once, or with publish false saved as the flow's draft (production keeps the published version until POST /api/flows/{id}/publish)",
      params: flowParams,
      body: updateFlowSchema,
      responses: {
        200: { description: "Updated", schema: flowDetailSchema },
        400: "Invalid body or definition",
        403: "Role too low",
        404: "No such flow",
        409: "Stale version (current_version)",
      },
    },
    authorize("flows:write"),
    async (req, res) => {
      res.json(await flows.update(req.input.auth, req.input.params.id, req.input.body, auditSource(req)));
    },
  );

  route(
    {
      method: "delete",
      path: "/:id",
      scope: "write",
      summary:
        "Delete a flow and its versions, cancelling its running and waiting runs first; its runs stay listed and readable (they keep the flow's name and version)",
      params: flowParams,
      responses: {
        200: "Deleted: {ok: true, cancelled_runs: [run ids]}, the runs it was running, now cancelling (their waits closed)",
        403: "Role too low",
        404: "No such flow",
        503: "Temporal did not take a run's cancel: the flow was not deleted (temporal_unavailable)",
      },
    },
    authorize("flows:write"),
    async (req, res) => {
      const { cancelled_runs } = await flows.remove(req.input.workspaceId, req.input.params.id, auditContext(req));
      res.json({ ok: true, cancelled_runs });
    },
  );
}

/** POST /{id}/duplicate: a copy of a flow, inactive. */
function flowDuplicateRoute(route: DeclareRoute, flows: FlowsService) {
  route(
    {
      method: "post",
      path: "/:id/duplicate",
      scope: "write",
      summary:
        'Duplicate a flow: a new inactive flow "<name> (copy)" with its current definition as version 1 and a hook of its own; no schedule turned on, no runs or versions copied',
      params: flowParams,
      responses: {
        201: { description: "The new flow", schema: flowDetailSchema },
        403: "Role too low",
        404: "No such flow",
        503: "Temporal did not take the copy's (paused) schedule: nothing was saved",
      },
    },
    authorize("flows:write"),
    async (req, res) => {
      const flow = await flows.duplicate(req.input.auth, req.input.params.id, auditSource(req));
      res.status(201).location(`/api/flows/${flow.id}`).json(flow);
    },
  );
}

/** /{id}/publish: a saved version (the draft, or an older one) becomes what production runs. */
function flowPublishRoute(route: DeclareRoute, flows: FlowsService) {
  route(
    {
      method: "post",
      path: "/:id/publish",
      scope: "write",
      summary:
        "Publish a saved version: the flow's draft, or an older version to roll back to, becomes what production runs (hooks, schedules, API and agent starts); publishing the draft clears it",
      params: flowParams,
      body: publishFlowSchema,
      responses: {
        200: { description: "Published", schema: flowDetailSchema },
        400: "Invalid body, or the version no longer passes the definition's checks (a credential gone)",
        403: "Role too low",
        404: "No such flow or version",
        409: "published_version is stale (current_version), or the version would make flows call each other in a cycle",
      },
    },
    authorize("flows:write"),
    async (req, res) => {
      res.json(await flows.publish(req.input.auth, req.input.params.id, req.input.body, auditSource(req)));
    },
  );
}

/** /{id}/versions: a flow's saved versions. */
function flowVersionRoutes(route: DeclareRoute, flows: FlowsService) {
  route(
    {
      method: "get",
      path: "/:id/versions",
      scope: "read",
      summary: "The versions of a flow, a page at a time",
      params: flowParams,
      query: listVersionsQuerySchema,
      responses: {
        200: {
          description: "Versions, newest first, and next_cursor",
          schema: z.object({ items: z.array(flowVersionItemSchema), next_cursor: z.string().nullable() }),
        },
        400: "Bad query",
        404: "No such flow",
      },
    },
    async (req, res) => {
      const { limit, cursor } = req.input.query;
      const after = decodeCursor(cursor, isVersionCursor);
      const items = await flows.versions(req.input.workspaceId, req.input.params.id, {
        limit: limit + 1,
        before: after?.v,
      });
      const { page, next_cursor } = keysetPage(items, limit, (last) => ({ v: last.version }));
      res.json({ items: page, next_cursor });
    },
  );

  route(
    {
      method: "get",
      path: "/:id/versions/:version",
      scope: "read",
      summary: "One immutable version of a flow",
      params: versionParams,
      responses: { 200: { description: "The version", schema: flowVersionSchema }, 404: "No such flow or version" },
    },
    async (req, res) => {
      const { id, version } = req.input.params;
      res.json(await flows.version(req.input.workspaceId, id, version));
    },
  );
}

/** A flow's hook address. */
function flowHookRoutes(route: DeclareRoute, flows: FlowsService) {
  route(
    {
      method: "post",
      path: "/:id/hook/regenerate",
      scope: "write",
      summary: "A new hook token for the flow's HTTP trigger; the old hook URL answers 404 at once",
      params: flowParams,
      responses: {
        200: { description: "The flow, with its new hook", schema: flowDetailSchema },
        403: "Role too low",
        404: "No such flow",
      },
    },
    authorize("flows:write"),
    async (req, res) => {
      res.json(await flows.regenerateHook(req.input.workspaceId, req.input.params.id, auditContext(req)));
    },
  );
}

/** Starting a run of a flow's current version. */
function flowRunRoute(route: DeclareRoute, runs: RunsService) {
  route(
    {
      method: "post",
      path: "/:id/run",
      scope: "run",
      summary: "Run the flow's current version; an Idempotency-Key header makes a repeat return the same run",
      params: flowParams,
      body: startRunSchema,
      absentBodyIsEmpty: true,
      responses: {
        201: { description: "Started", schema: startRunResponseSchema },
        200: "The run an earlier request with this Idempotency-Key and the same path and input started",
        400: "Invalid input or Idempotency-Key",
        403: "Role too low",
        404: "No such flow",
        409: "The flow is not active (flow_not_active), or the Idempotency-Key was used for another request (idempotency_key_reused: nothing of that run is answered)",
        503: "Temporal did not accept the run",
      },
    },
    authorize("runs:write"),
    async (req, res) => {
      const { params, body, auth } = req.input;
      const input = body.input ?? {};
      // The key replays only this request: its path and input (an absent input is {}).
      const idempotency = idempotencyOf(req, { input });
      const { run, replayed } = await runs.start(auth, params.id, input, idempotency);
      res
        .status(replayed ? 200 : 201)
        .location(`/api/runs/${run.id}`)
        .json({ run_id: run.id, status: run.status, started_at: run.startedAt.toISOString() });
    },
  );
}

/**
 * Mounted at /api/flows: POST /{id}/test-runs, a test run of a draft (core/runs/start/test-run.ts),
 * on an active or an inactive flow, nothing saved or turned on.
 */
export function createFlowTestRunRouter(
  deps: { runs: RunsService; rateLimiter: RateLimiter; config: Pick<Config, "TEST_RUN_RATE_LIMIT"> },
  docs: ApiDocs,
) {
  const { router, route } = documentedRouter(docs, "/api/flows", "flows");
  const max = deps.config.TEST_RUN_RATE_LIMIT;
  route(
    {
      method: "post",
      path: "/:id/test-runs",
      scope: "write",
      summary:
        "Run a draft (or the saved definition) once as a test run (trigger test), on an active or inactive flow, saving and turning on nothing: its nodes run for real, it fires no run event (no outgoing webhook, no error flow) and is left out of metrics",
      params: flowParams,
      body: testRunSchema,
      absentBodyIsEmpty: true,
      responses: {
        201: { description: "Started", schema: testRunResponseSchema },
        400: "Invalid body, input or draft (details lists every problem of the draft); a pin or until naming no node of the draft, pinning a trigger, or a pin whose branch does not fit its node: none for a branching node, one it does not have (invalid_test_node)",
        403: "Role too low",
        404: "No such flow",
        409: "The flow is archived (flow_not_active), or it changed while the run started",
        429: "Over TEST_RUN_RATE_LIMIT test runs a minute in the workspace (Retry-After)",
        503: "Temporal did not accept the run",
      },
    },
    authorize("runs:write"),
    async (req, res) => {
      const { params, body, auth } = req.input;
      const quota = deps.rateLimiter.quota(
        `test-run:${auth.workspace.workspaceId}`,
        60_000,
        max,
        `A workspace starts at most ${max} test runs a minute`,
      );
      const run = await deps.runs.test(auth, {
        flowId: params.id,
        definition: body.definition,
        input: body.input ?? {},
        quota,
        ...(body.pins ? { pins: body.pins } : {}),
        ...(body.until ? { until: body.until } : {}),
      });
      res
        .status(201)
        .location(`/api/runs/${run.id}`)
        .json({ run_id: run.id, status: run.status, started_at: run.startedAt.toISOString(), test: true });
    },
  );
  return router;
}
