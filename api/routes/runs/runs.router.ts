import { z } from "zod";
import { auditContext, auditSource } from "../../http/audit-context.js";
import { authorize } from "../../http/authenticate.middleware.js";
import { idempotencyOf } from "../../http/idempotency.js";
import { decodeCursor, isTimeIdCursor, keysetPage } from "../../http/cursor.js";
import { documentedRouter, type ApiDocs, type DeclareRoute } from "../../http/openapi.js";
import {
  latestRunsQuerySchema,
  listRunsQuerySchema,
  rerunFromBody,
  rerunRequestSchema,
  rerunResponseSchema,
  retryRunResponseSchema,
  runDetailSchema,
  runIdSchema,
  runListItemSchema,
  runItemsPageSchema,
  runItemsProgressSchema,
  runItemsQuerySchema,
  runQueuesQuerySchema,
  runQueuesSchema,
  runStepsSchema,
} from "./runs.schema.js";
import type { RunsService } from "../../../core/runs/runs.service.js";
import { NODE_ID_PATTERN } from "../../../core/contracts/flow-definition.js";

const runParams = z.object({ id: runIdSchema });
const nodeItemsParams = z.object({
  id: runIdSchema,
  node_id: z.string().regex(NODE_ID_PATTERN, { message: "must be a node id" }),
});
const isItemCursor = (value: unknown): value is { i: number } =>
  typeof value === "object" && value !== null && Number.isInteger((value as { i?: unknown }).i);
const isRunCursor = isTimeIdCursor("s");

export function createRunsRouter({ runs }: { runs: RunsService }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/runs", "runs");
  runListRoute(route, runs);
  runReadRoutes(route, runs);
  runItemRoutes(route, runs);
  runActionRoutes(route, runs);
  return router;
}

/** GET /: a page of the workspace's runs. */
function runListRoute(route: DeclareRoute, runs: RunsService) {
  route(
    {
      method: "get",
      path: "/",
      scope: "read",
      summary: "List runs, newest first, by flow, status, trigger, start time window and id, with a cursor",
      query: listRunsQuerySchema,
      responses: {
        200: {
          description: "A page of runs",
          schema: z.object({ items: z.array(runListItemSchema), next_cursor: z.string().nullable() }),
        },
        400: "Bad query",
      },
    },
    async (req, res) => {
      const { cursor, limit, flow_id, id, status, trigger, test, started_after, started_before } = req.input.query;
      const after = decodeCursor(cursor, isRunCursor);
      const items = await runs.list(req.input.workspaceId, {
        flowId: flow_id,
        idPrefix: id,
        status,
        trigger,
        test: test === undefined ? undefined : test === "true",
        startedAfter: started_after === undefined ? undefined : new Date(started_after),
        startedBefore: started_before === undefined ? undefined : new Date(started_before),
        limit: limit + 1,
        after: after && { time: new Date(after.s), id: after.id },
      });
      const { page, next_cursor } = keysetPage(items, limit, (last) => ({ s: last.started_at, id: last.id }));
      res.json({ items: page, next_cursor });
    },
  );
}

/** GET /queues, /{id} and /{id}/steps: where queued runs wait, a run and its step log. */
function runReadRoutes(route: DeclareRoute, runs: RunsService) {
  // Before /{id}, which would take "queues" for a run id.
  route(
    {
      method: "get",
      path: "/queues",
      scope: "read",
      summary:
        "Where the given runs wait: for each one queued at its flow's gate (or in its debounce window), why, its key and its place, one gate query per gate",
      query: runQueuesQuerySchema,
      responses: {
        200: { description: "The waiting runs' places", schema: runQueuesSchema },
        400: "Bad query",
      },
    },
    async (req, res) => {
      const places = await runs.queues(req.input.workspaceId, [...new Set(req.input.query.ids)]);
      res.json({ items: [...places].map(([run_id, place]) => ({ run_id, ...place })) });
    },
  );

  route(
    {
      method: "get",
      path: "/:id",
      scope: "read",
      summary: "A run: { run: { id, status, duration_ms, output, … } }",
      params: runParams,
      responses: {
        200: { description: "The run", schema: z.object({ run: runDetailSchema }) },
        404: "No such run",
      },
    },
    async (req, res) => {
      res.json({ run: await runs.get(req.input.workspaceId, req.input.params.id) });
    },
  );

  route(
    {
      method: "get",
      path: "/:id/steps",
      scope: "read",
      summary:
        "The run's step log: one entry per node attempt, with the node's input, output and error; and the nodes " +
        "and edges of the version it pinned, the nodes in the order they run",
      params: runParams,
      responses: {
        200: { description: "The steps", schema: runStepsSchema },
        404: "No such run",
      },
    },
    async (req, res) => {
      res.json(await runs.steps(req.input.workspaceId, req.input.params.id));
    },
  );
}

/** GET /{id}/items and /{id}/items/{node_id}: per-item nodes' progress and their items, page by page. */
function runItemRoutes(route: DeclareRoute, runs: RunsService) {
  route(
    {
      method: "get",
      path: "/:id/items",
      scope: "read",
      summary: "The progress of the run's nodes that run per item (their items setting): done, failed and total",
      params: runParams,
      responses: {
        200: { description: "One entry per node that runs per item and has started", schema: runItemsProgressSchema },
        404: "No such run",
      },
    },
    async (req, res) => {
      res.json({ nodes: await runs.itemsProgress(req.input.workspaceId, req.input.params.id) });
    },
  );

  route(
    {
      method: "get",
      path: "/:id/items/:node_id",
      scope: "read",
      summary: "A page of a per-item node's items in index order, with their results or errors, and its progress",
      params: nodeItemsParams,
      query: runItemsQuerySchema,
      responses: {
        200: { description: "A page of items", schema: runItemsPageSchema },
        400: "Bad query",
        404: "No such run",
      },
    },
    async (req, res) => {
      const { id, node_id } = req.input.params;
      const { cursor, limit, status } = req.input.query;
      const after = decodeCursor(cursor, isItemCursor);
      const [rows, progress] = await Promise.all([
        runs.items(req.input.workspaceId, id, node_id, { afterIndex: after?.i, limit, status }),
        runs.itemsProgress(req.input.workspaceId, id),
      ]);
      const { page, next_cursor } = keysetPage(rows, limit, (last) => ({ i: last.index }));
      res.json({
        node_id,
        progress: progress.find((entry) => entry.node_id === node_id) ?? null,
        items: page,
        next_cursor,
      });
    },
  );
}

/** POST /{id}/cancel, /{id}/rerun, /{id}/retry and DELETE /{id}: what a member with runs:write does to a run. */
function runActionRoutes(route: DeclareRoute, runs: RunsService) {
  route(
    {
      method: "post",
      path: "/:id/cancel",
      scope: "run",
      summary: "Cancel a running run; it ends as cancelled",
      params: runParams,
      responses: {
        202: "Cancellation requested",
        403: "Role too low",
        404: "No such run",
        409: "The run is not running",
      },
    },
    authorize("runs:write"),
    async (req, res) => {
      res.status(202).json(await runs.cancel(req.input.workspaceId, req.input.params.id, auditContext(req)));
    },
  );
  runRerunRoute(route, runs);
  runRetryAndDeleteRoutes(route, runs);
}

/** POST /{id}/rerun: a new run of an ended one, from a node, on its version or the latest. */
function runRerunRoute(route: DeclareRoute, runs: RunsService) {
  route(
    {
      method: "post",
      path: "/:id/rerun",
      scope: "run",
      summary:
        "A new run of an ended run from a node (or its failed node, or the start), on its version or the latest, with the input or carried outputs replaced; an Idempotency-Key header makes a repeat answer the same run",
      params: runParams,
      body: rerunRequestSchema,
      absentBodyIsEmpty: true,
      responses: {
        201: { description: "Started", schema: rerunResponseSchema },
        200: "The run an earlier request with this Idempotency-Key and the same body started",
        400: "Invalid body or Idempotency-Key, or outputs for nodes the rerun runs again (invalid_rerun_outputs)",
        403: "Role too low",
        404: "No such run",
        409: "The Idempotency-Key was used for another request (idempotency_key_reused), the run has not ended (run_not_ended), from_node is not in the version (rerun_node_missing), carried nodes are gone or changed type in it (rerun_version_mismatch: `nodes` names them), or the flow is not active",
        503: "Temporal did not accept the run",
      },
    },
    authorize("runs:write"),
    async (req, res) => {
      const { params, body, auth } = req.input;
      const from = rerunFromBody(body);
      const { run, replayed } = await runs.rerun(
        auth,
        params.id,
        { from, version: body.version, input: body.input, outputs: body.outputs },
        idempotencyOf(req, body),
        auditSource(req),
      );
      res
        .status(replayed ? 200 : 201)
        .location(`/api/runs/${run.id}`)
        .json({
          run_id: run.id,
          status: run.status,
          started_at: run.startedAt.toISOString(),
          rerun_of: params.id,
          version: run.version,
        });
    },
  );
}

/** POST /{id}/retry and DELETE /{id}. */
function runRetryAndDeleteRoutes(route: DeclareRoute, runs: RunsService) {
  route(
    {
      method: "post",
      path: "/:id/retry",
      scope: "run",
      summary:
        "A new run that reuses the nodes that succeeded and starts at the failed one, on the run's version (a rerun with from_failed)",
      params: runParams,
      responses: {
        201: { description: "Started", schema: retryRunResponseSchema },
        403: "Role too low",
        404: "No such run",
        409: "The run is not failed or cancelled, or the flow is not active",
        503: "Temporal did not accept the run",
      },
    },
    authorize("runs:write"),
    async (req, res) => {
      const run = await runs.retry(req.input.auth, req.input.params.id, auditSource(req));
      res
        .status(201)
        .json({ run_id: run.id, status: run.status, started_at: run.startedAt.toISOString(), retry_of: run.retryOf });
    },
  );

  route(
    {
      method: "delete",
      path: "/:id",
      scope: "run",
      summary: "Delete a finished run with its steps and logs",
      params: runParams,
      responses: {
        200: "Deleted",
        403: "Role too low",
        404: "No such run",
        409: "The run is running: cancel it first",
      },
    },
    authorize("runs:write"),
    async (req, res) => {
      await runs.remove(req.input.workspaceId, req.input.params.id, auditContext(req));
      res.json({ ok: true });
    },
  );
}

export function createDashboardRouter({ runs }: { runs: RunsService }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/dashboard", "runs");
  route(
    {
      method: "get",
      path: "/runs/latest",
      scope: "read",
      summary: "The latest runs with their flow names",
      query: latestRunsQuerySchema,
      responses: { 200: "The runs" },
    },
    async (req, res) => {
      res.json(await runs.latest(req.input.workspaceId, req.input.query.limit));
    },
  );
  return router;
}
