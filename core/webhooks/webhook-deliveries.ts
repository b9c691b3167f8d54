// A workspace's webhook deliveries: the log, redelivery and test pings. Deliveries themselves are
// deliverWebhook workflows run by the worker.
import { newId } from "../../lib/ids.js";
import { afterTimeAndId, type TimeIdKey } from "../../lib/keyset.js";
import type { DeliveryState } from "../contracts/deliver-webhook.js";
import { temporalRefusal } from "../engine/temporal-start.js";
import { deliveryBody } from "./delivery-body.js";
import { startDeliveryWorkflow } from "./delivery-start.js";
import { WebhookDeliveryNotFound, WebhookEndpointDisabled } from "./webhook-errors.js";
import type { WebhooksContext } from "./webhooks-context.js";
import { endpointOf } from "./webhook-endpoints.js";
import { deliveryView } from "./webhook-views.js";

/** Records a delivery, then starts its workflow (which must find the row); EngineUnavailable if Temporal refuses. */
async function startDelivery(
  { prisma, clock, temporal, startOptions }: WebhooksContext,
  data: { workspaceId: string; endpointId: string; event: string; body: string; redeliveryOf?: string },
) {
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

/** Up to `limit` of an endpoint's deliveries, newest first (before the one `after` keys). */
export async function listDeliveries(
  context: Pick<WebhooksContext, "prisma">,
  workspaceId: string,
  endpointId: string,
  query: { status?: DeliveryState; limit: number; after?: TimeIdKey },
) {
  await endpointOf(context, workspaceId, endpointId);
  const rows = await context.prisma.webhookDelivery.findMany({
    where: {
      workspaceId,
      endpointId,
      ...(query.status ? { status: query.status } : {}),
      ...afterTimeAndId(query.after, { time: "createdAt", id: "id" }, "desc"),
    },
    include: { attemptLog: { orderBy: { number: "asc" } } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit,
  });
  return rows.map(deliveryView);
}

export async function getDelivery({ prisma }: Pick<WebhooksContext, "prisma">, workspaceId: string, id: string) {
  const row = await prisma.webhookDelivery.findFirst({
    where: { id, workspaceId },
    include: { attemptLog: { orderBy: { number: "asc" } } },
  });
  if (!row) throw new WebhookDeliveryNotFound();
  return deliveryView(row);
}

/** A new delivery of the same payload to the same endpoint. */
export async function redeliver(context: WebhooksContext, workspaceId: string, id: string) {
  const original = await context.prisma.webhookDelivery.findFirst({ where: { id, workspaceId } });
  if (!original) throw new WebhookDeliveryNotFound();
  const delivery = await startDelivery(context, {
    workspaceId,
    endpointId: original.endpointId,
    event: original.event,
    body: original.body,
    redeliveryOf: original.id,
  });
  return deliveryView(delivery);
}

/** Sends a sample `ping` event to an enabled endpoint. */
export async function pingEndpoint(context: WebhooksContext, workspaceId: string, endpointId: string) {
  const endpoint = await endpointOf(context, workspaceId, endpointId);
  if (!endpoint.enabled) throw new WebhookEndpointDisabled();
  const now = context.clock.now();
  const body = deliveryBody({
    event: "ping",
    timestamp: now.toISOString(),
    workspace_id: workspaceId,
    data: { endpoint_id: endpointId, message: "A test event from the webhook settings" },
  });
  return deliveryView(await startDelivery(context, { workspaceId, endpointId, event: "ping", body }));
}
