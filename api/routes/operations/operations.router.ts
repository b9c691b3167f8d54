// Bulk operations over runs: GET /api/runs/failures groups what failed, POST /api/runs/rerun asks
// for a bulk rerun, POST /api/flows/{id}/replay for a replay against a draft, /api/operations/{id}
// reads their progress (and a replay's results) and cancels them.
import { auditContext, auditSource } from "../../http/audit-context.js";
import { z } from "zod";
import type { OperationsService, RunSelection } from "../../../core/operations/operations.service.js";
import type { RunsService } from "../../../core/runs/runs.service.js";
import { authorize } from "../../http/authenticate.middleware.js";
import { idempotencyOf } from "../../http/idempotency.js";
import { rerunFromBody } from "../runs/runs.schema.js";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import {
  bulkRerunRequestSchema,
  bulkRerunResponseSchema,
  failureGroupsSchema,
  failuresQuerySchema,
  operationIdSchema,
  operationSchema,
  replayRequestSchema,
  replayResponseSchema,
} from "./operations.schema.js";
import { flowIdSchema } from "../flows/flows.schema.js";

const operationParams = z.object({ id: operationIdSchema });

/** GET /api/runs/failures and POST /api/runs/rerun: what failed, and rerunning it in bulk. */
export function createBulkRerunRouter(
  { operations, runs }: { operations: OperationsService; runs: RunsService },
  docs: ApiDocs,
) {
  const { router, route } = documentedRouter(docs, "/api/runs", "runs");
  route(
    {
      method: "get",
      path: "/failures",
      scope: "read",
      summary:
        "A flow's failed runs grouped by the node that failed and its error, the largest group first (runs already rerun to success left out)",
      query: failuresQuerySchema,
      responses: { 200: { description: "The groups", schema: failureGroupsSchema }, 400: "Bad query" },
    },
    async (req, res) => {
      const { flow_id, started_after } = req.input.query;
      res.json(
        await runs.failures(
          req.input.workspaceId,
          flow_id,
          started_after === undefined ? undefined : new Date(started_after),
        ),
      );
    },
  );
  route(
    {
      method: "post",
      path: "/rerun",
      scope: "run",
      summary:
        "Rerun many ended runs (by ids or the runs list's filters) as one durable operation, each from a node or its failed node, on the latest version or its own; an Idempotency-Key header makes a repeat answer the same operation",
      body: bulkRerunRequestSchema,
      responses: {
        202: { description: "The operation, started", schema: bulkRerunResponseSchema },
        200: "The operation an earlier request with this Idempotency-Key and the same body asked for",
        400: "Invalid body or Idempotency-Key, or no run matches (selection_empty)",
        403: "Role too low",
        409: "The Idempotency-Key was used for another request (idempotency_key_reused: nothing of that operation is answered)",
        413: "More runs than BULK_RERUN_MAX_RUNS match (selection_too_large)",
        429: "BULK_RERUNS_PER_WORKSPACE bulk reruns are running (bulk_reruns_busy)",
        503: "Temporal did not accept the operation",
      },
    },
    authorize("runs:write"),
    async (req, res) => {
      const { body, auth } = req.input;
      const selection: RunSelection = body.ids
        ? { ids: body.ids }
        : {
            filter: {
              flowId: body.flow_id,
              status: body.status,
              trigger: body.trigger,
              startedAfter: body.started_after === undefined ? undefined : new Date(body.started_after),
              startedBefore: body.started_before === undefined ? undefined : new Date(body.started_before),
            },
          };
      const from = rerunFromBody(body);
      const operation = await operations.bulkRerun(
        auth,
        { from, version: body.version, selection },
        idempotencyOf(req, body),
        auditSource(req),
      );
      res
        .status(operation.replayed ? 200 : 202)
        .location(`/api/operations/${operation.id}`)
        .json({
          operation_id: operation.id,
          status: operation.status,
          total: operation.total,
          created_at: operation.createdAt.toISOString(),
        });
    },
  );
  return router;
}

/** /api/operations/{id}: progress and cancel. */
export function createOperationsRouter({ operations }: { operations: OperationsService }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/operations", "operations");
  route(
    {
      method: "get",
      path: "/:id",
      scope: "read",
      summary:
        "A bulk operation and its progress: items pending, started and skipped (with reasons), its reruns by status",
      params: operationParams,
      responses: { 200: { description: "The operation", schema: operationSchema }, 404: "No such operation" },
    },
    async (req, res) => {
      res.json(await operations.get(req.input.workspaceId, req.input.params.id));
    },
  );
  route(
    {
      method: "post",
      path: "/:id/cancel",
      scope: "run",
      summary: "Cancel a running operation: the runs not yet rerun are skipped; reruns started run on",
      params: operationParams,
      responses: {
        202: { description: "Cancelling", schema: z.object({ id: z.string(), status: z.literal("cancelling") }) },
        403: "Role too low",
        404: "No such operation",
        409: "The operation is not running (operation_not_running)",
        503: "Temporal did not take the cancellation",
      },
    },
    authorize("runs:write"),
    async (req, res) => {
      res.status(202).json(await operations.cancel(req.input.workspaceId, req.input.params.id, auditContext(req)));
    },
  );
  return router;
}

/** POST /api/flows/{id}/replay: the flow's recorded runs replayed on a draft, as one operation. */
export function createFlowReplayRouter({ operations }: { operations: OperationsService }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/flows", "flows");
  route(
    {
      method: "post",
      path: "/:id/replay",
      scope: "run",
      summary:
        "Replay the flow's last N ended runs (or ids) on a draft, as test runs: nodes that reach outside take their recorded outputs, the others run; GET /api/operations/{id} compares each node's output with the recorded one",
      params: z.object({ id: flowIdSchema }),
      body: replayRequestSchema,
      responses: {
        202: { description: "The operation (kind replay), started", schema: replayResponseSchema },
        400: "Invalid body or draft, more runs than REPLAY_MAX_RUNS (replay_too_large), or no run to replay (selection_empty)",
        403: "Role too low",
        404: "No such flow",
        409: "The flow is not active",
        429: "BULK_RERUNS_PER_WORKSPACE operations are running (bulk_reruns_busy)",
        503: "Temporal did not accept the operation",
      },
    },
    authorize("runs:write"),
    async (req, res) => {
      const { body, params, auth } = req.input;
      const operation = await operations.replay(auth, params.id, {
        definition: body.definition,
        selection: body.ids ? { ids: body.ids } : { last: body.last },
      });
      res.status(202).location(`/api/operations/${operation.id}`).json({
        operation_id: operation.id,
        status: operation.status,
        total: operation.total,
        created_at: operation.createdAt.toISOString(),
        version: operation.version,
      });
    },
  );
  return router;
}
