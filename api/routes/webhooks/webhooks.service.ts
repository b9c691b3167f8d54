// Webhook settings of a workspace: endpoints, the signing secret, the delivery log, redelivery
// and test pings. Deliveries themselves are deliverWebhook workflows run by the worker.
import type { Client } from "@temporalio/client";
import type { Clock } from "../../../lib/clock.js";
import type { Config } from "../../../lib/config.js";
import type { PrismaClient } from "../../../lib/db.js";
import { parseAddress, parseAllowlist, refusedRange } from "../../../lib/egress/address-policy.js";
import { newId } from "../../../lib/ids.js";
import { deliveryBody } from "../../../lib/webhooks/body.js";
import { generateWebhookSecret } from "../../../lib/webhooks/signing.js";
import { startDeliveryWorkflow } from "../../../core/contracts/deliver-webhook.js";
import { afterTimeAndId } from "../../../lib/keyset.js";
import { decodeCursor, isTimeIdCursor, keysetPage } from "../../http/cursor.js";
import { badRequest, HttpError, notFound } from "../../http/errors.js";
import { temporalRefusal } from "../../../core/engine/temporal-start.js";
import type { CreateEndpointInput, UpdateEndpointInput } from "./webhooks.schema.js";

export interface WebhooksServiceDeps {
  prisma: PrismaClient;
  clock: Clock;
  temporal: Client;
  config: Pick<
    Config,
    "TEMPORAL_TASK_QUEUE" | "WEBHOOK_RETRY_DELAYS" | "WEBHOOK_TIMEOUT" | "WEBHOOK_SECRET_GRACE" | "EGRESS_ALLOWLIST"
  >;
}

type EndpointRow = {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  description: string | null;
  createdAt: Date;
  updatedAt: Date;
};

const endpointView = (row: EndpointRow) => ({
  id: row.id,
  url: row.url,
  events: row.events,
  enabled: row.enabled,
  description: row.description,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

type DeliveryRow = {
  id: string;
  endpointId: string;
  event: string;
  status: string;
  attempts: number;
  nextAttemptAt: Date | null;
  redeliveryOf: string | null;
  createdAt: Date;
  updatedAt: Date;
  body: string;
  attemptLog: Array<{
    number: number;
    startedAt: Date;
    durationMs: number;
    statusCode: number | null;
    error: string | null;
    responseExcerpt: string | null;
  }>;
};

const deliveryView = (row: DeliveryRow) => ({
  id: row.id,
  endpoint_id: row.endpointId,
  event: row.event,
  status: row.status,
  attempts: row.attempts,
  next_attempt_at: row.nextAttemptAt?.toISOString() ?? null,
  redelivery_of: row.redeliveryOf,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
  payload: JSON.parse(row.body) as unknown,
  attempt_log: row.attemptLog.map((a) => ({
    number: a.number,
    started_at: a.startedAt.toISOString(),
    duration_ms: a.durationMs,
    status_code: a.statusCode,
    error: a.error,
    response_excerpt: a.responseExcerpt,
  })),
});

/** Deliveries and endpoints page by creation: `{ t: created_at, id }`. */
const isCreationCursor = isTimeIdCursor("t");
const byCreation = (last: { createdAt: Date; id: string }) => ({ t: last.createdAt.toISOString(), id: last.id });

export function createWebhooksService(deps: WebhooksServiceDeps) {
  const { prisma, clock, temporal, config } = deps;
  const allowlist = parseAllowlist(config.EGRESS_ALLOWLIST);
  const startOptions = {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    retryDelaysMs: config.WEBHOOK_RETRY_DELAYS,
    timeoutMs: config.WEBHOOK_TIMEOUT,
  };

  /** Literal private addresses are refused at once; host names are checked at every delivery. */
  function checkTarget(url: string) {
    const host = new URL(url).hostname;
    const address = parseAddress(host);
    if (allowlist.allowsHost(host) || !address || allowlist.allowsAddress(address)) return;
    const rule = refusedRange(address);
    if (rule) {
      throw badRequest(`The URL points at a ${rule}, which webhooks cannot reach (EGRESS_ALLOWLIST lets one through)`, {
        details: [{ path: "url", message: `is a ${rule}` }],
      });
    }
  }

  async function endpointOf(workspaceId: string, id: string) {
    const endpoint = await prisma.webhookEndpoint.findFirst({ where: { id, workspaceId } });
    if (!endpoint) throw notFound("No such webhook endpoint");
    return endpoint;
  }

  /** Records a delivery, then starts its workflow (which must find the row); 503 if Temporal refuses. */
  async function startDelivery(data: {
    workspaceId: string;
    endpointId: string;
    event: string;
    body: string;
    redeliveryOf?: string;
  }) {
    const now = clock.now();
    const delivery = await prisma.webhookDelivery.create({
      data: { id: newId("whd"), ...data, createdAt: now, updatedAt: now },
      include: { attemptLog: true },
    });
    try {
      await startDeliveryWorkflow(temporal, startOptions, delivery.id);
    } catch (error) {
      await prisma.webhookDelivery.delete({ where: { id: delivery.id } }).catch(() => undefined);
      throw temporalRefusal("The delivery could not be started", error);
    }
    return delivery;
  }

  return {
    /** A page of endpoints in the order they were created, and the secret's dates. */
    async list(workspaceId: string, query: { limit: number; cursor?: string }) {
      const after = decodeCursor(query.cursor, isCreationCursor);
      const [rows, secret] = await Promise.all([
        prisma.webhookEndpoint.findMany({
          where: {
            workspaceId,
            ...afterTimeAndId(
              after && { time: new Date(after.t), id: after.id },
              { time: "createdAt", id: "id" },
              "asc",
            ),
          },
          orderBy: [{ createdAt: "asc" }, { id: "asc" }],
          take: query.limit + 1,
        }),
        prisma.webhookSecret.findUnique({ where: { workspaceId }, select: { createdAt: true, rotatedAt: true } }),
      ]);
      const { page, next_cursor } = keysetPage(rows, query.limit, byCreation);
      return {
        items: page.map(endpointView),
        next_cursor,
        secret: secret
          ? { created_at: secret.createdAt.toISOString(), rotated_at: secret.rotatedAt?.toISOString() ?? null }
          : null,
      };
    },

    async get(workspaceId: string, id: string) {
      return endpointView(await endpointOf(workspaceId, id));
    },

    /** The answer carries `secret` when this call generated the workspace's secret (shown once). */
    async create(workspaceId: string, input: CreateEndpointInput) {
      checkTarget(input.url);
      return prisma.$transaction(async (tx) => {
        const existing = await tx.webhookSecret.findUnique({ where: { workspaceId } });
        let secret: string | undefined;
        if (!existing) {
          secret = generateWebhookSecret();
          await tx.webhookSecret.create({ data: { workspaceId, secret } });
        }
        const endpoint = await tx.webhookEndpoint.create({
          data: {
            id: newId("whe"),
            workspaceId,
            url: input.url,
            events: input.events,
            enabled: input.enabled,
            description: input.description ?? null,
          },
        });
        return { ...endpointView(endpoint), ...(secret ? { secret } : {}) };
      });
    },

    async update(workspaceId: string, id: string, input: UpdateEndpointInput) {
      await endpointOf(workspaceId, id);
      if (input.url !== undefined) checkTarget(input.url);
      const endpoint = await prisma.webhookEndpoint.update({
        where: { id },
        data: {
          ...(input.url !== undefined ? { url: input.url } : {}),
          ...(input.events !== undefined ? { events: input.events } : {}),
          ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
        },
      });
      return endpointView(endpoint);
    },

    /** Deletes the endpoint and its delivery log; deliveries in flight stop at their next attempt. */
    async remove(workspaceId: string, id: string) {
      await endpointOf(workspaceId, id);
      await prisma.webhookEndpoint.delete({ where: { id } });
      return { ok: true };
    },

    /** A new secret, shown once; the previous one keeps signing for WEBHOOK_SECRET_GRACE. */
    async rotateSecret(workspaceId: string) {
      const now = clock.now();
      const secret = generateWebhookSecret();
      const previousExpiresAt = new Date(now.getTime() + config.WEBHOOK_SECRET_GRACE);
      const existing = await prisma.webhookSecret.findUnique({ where: { workspaceId } });
      await prisma.webhookSecret.upsert({
        where: { workspaceId },
        create: { workspaceId, secret },
        update: {
          secret,
          previousSecret: existing?.secret ?? null,
          previousExpiresAt: existing ? previousExpiresAt : null,
          rotatedAt: now,
        },
      });
      return {
        secret,
        previous_secret_expires_at: existing ? previousExpiresAt.toISOString() : null,
      };
    },

    async deliveries(
      workspaceId: string,
      endpointId: string,
      query: { status?: "pending" | "succeeded" | "failed"; limit: number; cursor?: string },
    ) {
      await endpointOf(workspaceId, endpointId);
      const after = decodeCursor(query.cursor, isCreationCursor);
      const rows = await prisma.webhookDelivery.findMany({
        where: {
          workspaceId,
          endpointId,
          ...(query.status ? { status: query.status } : {}),
          ...afterTimeAndId(
            after && { time: new Date(after.t), id: after.id },
            { time: "createdAt", id: "id" },
            "desc",
          ),
        },
        include: { attemptLog: { orderBy: { number: "asc" } } },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: query.limit + 1,
      });
      const { page, next_cursor } = keysetPage(rows, query.limit, byCreation);
      return { items: page.map(deliveryView), next_cursor };
    },

    async delivery(workspaceId: string, id: string) {
      const row = await prisma.webhookDelivery.findFirst({
        where: { id, workspaceId },
        include: { attemptLog: { orderBy: { number: "asc" } } },
      });
      if (!row) throw notFound("No such delivery");
      return deliveryView(row);
    },

    /** A new delivery of the same payload to the same endpoint. */
    async redeliver(workspaceId: string, id: string) {
      const original = await prisma.webhookDelivery.findFirst({ where: { id, workspaceId } });
      if (!original) throw notFound("No such delivery");
      const delivery = await startDelivery({
        workspaceId,
        endpointId: original.endpointId,
        event: original.event,
        body: original.body,
        redeliveryOf: original.id,
      });
      return deliveryView(delivery);
    },

    /** Sends a sample `ping` event to an enabled endpoint. */
    async ping(workspaceId: string, endpointId: string) {
      const endpoint = await endpointOf(workspaceId, endpointId);
      if (!endpoint.enabled) throw new HttpError(409, "endpoint_disabled", "The endpoint is disabled: enable it first");
      const now = clock.now();
      const body = deliveryBody({
        event: "ping",
        timestamp: now.toISOString(),
        workspace_id: workspaceId,
        data: { endpoint_id: endpointId, message: "A test event from the webhook settings" },
      });
      return deliveryView(await startDelivery({ workspaceId, endpointId, event: "ping", body }));
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
