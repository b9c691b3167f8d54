import { z } from "zod";
import { auditContext } from "../../http/audit-context.js";
import { authorize } from "../../http/authenticate.middleware.js";
import { decodeCursor, isTimeIdCursor, keysetPage } from "../../http/cursor.js";
import { documentedRouter, type ApiDocs, type DeclareRoute } from "../../http/openapi.js";
import {
  createEndpointSchema,
  deliveryIdSchema,
  deliveryViewSchema,
  endpointCreatedSchema,
  endpointIdSchema,
  endpointsPageSchema,
  endpointViewSchema,
  listDeliveriesQuerySchema,
  listEndpointsQuerySchema,
  secretRotatedSchema,
  updateEndpointSchema,
} from "./webhooks.schema.js";
import type { WebhooksService } from "../../../core/webhooks/webhooks.service.js";

const endpointParams = z.object({ id: endpointIdSchema });
const deliveryParams = z.object({ deliveryId: deliveryIdSchema });

/** Endpoints and deliveries page by creation: `{ t: created_at, id }`. */
const isCreationCursor = isTimeIdCursor("t");
const byCreation = (last: { created_at: string; id: string }) => ({ t: last.created_at, id: last.id });

/** The sort key a page's cursor holds (undefined on the first page); 400 when it holds none. */
function creationKey(cursor: string | undefined) {
  const after = decodeCursor(cursor, isCreationCursor);
  return after && { time: new Date(after.t), id: after.id };
}

/** /api/settings/webhooks: the dashboard's webhook settings (admins and owners). */
export function createWebhooksRouter({ webhooks }: { webhooks: WebhooksService }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/settings/webhooks", "webhooks");
  router.use(authorize("settings:manage"));
  endpointListRoutes(route, webhooks);
  deliveryRoutes(route, webhooks);
  endpointRoutes(route, webhooks);
  endpointDeliveryRoutes(route, webhooks);
  return router;
}

/** The endpoints, a new one, and the signing secret's rotation. */
function endpointListRoutes(route: DeclareRoute, webhooks: WebhooksService) {
  route(
    {
      method: "get",
      path: "/",
      scope: "admin",
      summary: "The workspace's webhook endpoints, a page at a time, and whether a signing secret exists",
      query: listEndpointsQuerySchema,
      responses: {
        200: { description: "A page of endpoints, next_cursor and the secret's dates", schema: endpointsPageSchema },
        400: "Bad query",
        403: "Admins and owners only",
      },
    },
    async (req, res) => {
      const { limit, cursor } = req.input.query;
      const { items, secret } = await webhooks.list(req.input.workspaceId, {
        limit: limit + 1,
        after: creationKey(cursor),
      });
      const { page, next_cursor } = keysetPage(items, limit, byCreation);
      res.json({ items: page, next_cursor, secret });
    },
  );

  route(
    {
      method: "post",
      path: "/",
      scope: "admin",
      summary: "Add an endpoint; the first one generates the workspace's secret, returned once as `secret`",
      body: createEndpointSchema,
      responses: {
        201: { description: "The endpoint", schema: endpointCreatedSchema },
        400: "Bad URL or events",
        403: "Admins and owners only",
      },
    },
    async (req, res) => {
      res.status(201).json(await webhooks.create(req.input.workspaceId, req.input.body, auditContext(req)));
    },
  );

  route(
    {
      method: "post",
      path: "/secret/rotate",
      scope: "admin",
      summary: "A new signing secret, returned once; the previous one keeps signing for WEBHOOK_SECRET_GRACE",
      responses: { 200: { description: "The new secret", schema: secretRotatedSchema }, 403: "Admins and owners only" },
    },
    async (req, res) => {
      res.json(await webhooks.rotateSecret(req.input.workspaceId, auditContext(req)));
    },
  );
}

/** /deliveries/{deliveryId}: one delivery, and delivering it again. */
function deliveryRoutes(route: DeclareRoute, webhooks: WebhooksService) {
  route(
    {
      method: "get",
      path: "/deliveries/:deliveryId",
      scope: "admin",
      summary: "One delivery with its attempts",
      params: deliveryParams,
      responses: { 200: { description: "The delivery", schema: deliveryViewSchema }, 404: "No such delivery" },
    },
    async (req, res) => {
      res.json(await webhooks.delivery(req.input.workspaceId, req.input.params.deliveryId));
    },
  );

  route(
    {
      method: "post",
      path: "/deliveries/:deliveryId/redeliver",
      scope: "admin",
      summary: "Deliver the same payload again, as a new delivery",
      params: deliveryParams,
      responses: {
        202: { description: "The new delivery", schema: deliveryViewSchema },
        404: "No such delivery",
        503: "Temporal is unavailable",
      },
    },
    async (req, res) => {
      res.status(202).json(await webhooks.redeliver(req.input.workspaceId, req.input.params.deliveryId));
    },
  );
}

/** /{id}: one endpoint (read, changed, deleted). */
function endpointRoutes(route: DeclareRoute, webhooks: WebhooksService) {
  route(
    {
      method: "get",
      path: "/:id",
      scope: "admin",
      summary: "One endpoint",
      params: endpointParams,
      responses: { 200: { description: "The endpoint", schema: endpointViewSchema }, 404: "No such endpoint" },
    },
    async (req, res) => {
      res.json(await webhooks.get(req.input.workspaceId, req.input.params.id));
    },
  );

  route(
    {
      method: "put",
      path: "/:id",
      scope: "admin",
      summary: "Change an endpoint's URL, events, enabled flag or description",
      params: endpointParams,
      body: updateEndpointSchema,
      responses: {
        200: { description: "The endpoint", schema: endpointViewSchema },
        400: "Bad URL or events",
        404: "No such endpoint",
      },
    },
    async (req, res) => {
      res.json(await webhooks.update(req.input.workspaceId, req.input.params.id, req.input.body, auditContext(req)));
    },
  );

  route(
    {
      method: "delete",
      path: "/:id",
      scope: "admin",
      summary: "Delete an endpoint and its delivery log",
      params: endpointParams,
      responses: { 200: "Deleted", 404: "No such endpoint" },
    },
    async (req, res) => {
      res.json(await webhooks.remove(req.input.workspaceId, req.input.params.id, auditContext(req)));
    },
  );
}

/** An endpoint's delivery log, and a test ping. */
function endpointDeliveryRoutes(route: DeclareRoute, webhooks: WebhooksService) {
  route(
    {
      method: "get",
      path: "/:id/deliveries",
      scope: "admin",
      summary: "The endpoint's deliveries, newest first, each with its attempts",
      params: endpointParams,
      query: listDeliveriesQuerySchema,
      responses: {
        200: {
          description: "A page of deliveries",
          schema: z.object({ items: z.array(deliveryViewSchema), next_cursor: z.string().nullable() }),
        },
        404: "No such endpoint",
      },
    },
    async (req, res) => {
      const { params, query, workspaceId } = req.input;
      const items = await webhooks.deliveries(workspaceId, params.id, {
        status: query.status,
        limit: query.limit + 1,
        after: creationKey(query.cursor),
      });
      const { page, next_cursor } = keysetPage(items, query.limit, byCreation);
      res.json({ items: page, next_cursor });
    },
  );

  route(
    {
      method: "post",
      path: "/:id/ping",
      scope: "admin",
      summary: "Send a sample `ping` event to the endpoint",
      params: endpointParams,
      responses: {
        202: { description: "The delivery", schema: deliveryViewSchema },
        404: "No such endpoint",
        409: "The endpoint is disabled",
      },
    },
    async (req, res) => {
      res.status(202).json(await webhooks.ping(req.input.workspaceId, req.input.params.id));
    },
  );
}
