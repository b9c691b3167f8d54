// A workspace's webhook deliveries: the log (by endpoint, and one delivery), a redelivery, and a
// test ping. Each delivery is recorded, then run by its deliverWebhook workflow.
import type { Client } from "@temporalio/client";
import type { Clock } from "../../../lib/clock.js";
import type { PrismaClient } from "../../../lib/db.js";
import { newId } from "../../../lib/ids.js";
import { afterTimeAndId } from "../../../lib/keyset.js";
import { deliveryBody } from "../../../lib/webhooks/body.js";
import { startDeliveryWorkflow } from "../../../core/contracts/deliver-webhook.js";
import { temporalRefusal } from "../../../core/engine/temporal-start.js";
import { decodeCursor, keysetPage } from "../../http/cursor.js";
import { HttpError, notFound } from "../../http/errors.js";
import { endpointOf } from "./webhook-endpoints.js";
import { byCreation, deliveryView, isCreationCursor } from "./webhook-views.js";

export interface DeliveryStartDeps {
  prisma: PrismaClient;
  clock: Clock;
  temporal: Client;
  /** How the delivery workflows run (task queue, retry delays, time limit). */
  startOptions: Parameters<typeof startDeliveryWorkflow>[1];
}

/** Records a delivery, then starts its workflow (which must find the row); 503 if Temporal refuses. */
async function startDelivery(
  { prisma, clock, temporal, startOptions }: DeliveryStartDeps,
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

/** An endpoint's deliveries, newest first, by status. */
export async function listDeliveries(
  prisma: PrismaClient,
  workspaceId: string,
  endpointId: string,
  query: { status?: "pending" | "succeeded" | "failed"; limit: number; cursor?: string },
) {
  await endpointOf(prisma, workspaceId, endpointId);
  const after = decodeCursor(query.cursor, isCreationCursor);
  const rows = await prisma.webhookDelivery.findMany({
    where: {
      workspaceId,
      endpointId,
      ...(query.status ? { status: query.status } : {}),
      ...afterTimeAndId(after && { time: new Date(after.t), id: after.id }, { time: "createdAt", id: "id" }, "desc"),
    },
    include: { attemptLog: { orderBy: { number: "asc" } } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit + 1,
  });
  const { page, next_cursor } = keysetPage(rows, query.limit, byCreation);
  return { items: page.map(deliveryView), next_cursor };
}

export async function getDelivery(prisma: PrismaClient, workspaceId: string, id: string) {
  const row = await prisma.webhookDelivery.findFirst({
    where: { id, workspaceId },
    include: { attemptLog: { orderBy: { number: "asc" } } },
  });
  if (!row) throw notFound("No such delivery");
  return deliveryView(row);
}

/** A new delivery of the same payload to the same endpoint. */
export async function redeliver(deps: DeliveryStartDeps, workspaceId: string, id: string) {
  const original = await deps.prisma.webhookDelivery.findFirst({ where: { id, workspaceId } });
  if (!original) throw notFound("No such delivery");
  const delivery = await startDelivery(deps, {
    workspaceId,
    endpointId: original.endpointId,
    event: original.event,
    body: original.body,
    redeliveryOf: original.id,
  });
  return deliveryView(delivery);
}

/** Sends a sample `ping` event to an enabled endpoint. */
export async function pingEndpoint(deps: DeliveryStartDeps, workspaceId: string, endpointId: string) {
  const endpoint = await endpointOf(deps.prisma, workspaceId, endpointId);
  if (!endpoint.enabled) throw new HttpError(409, "endpoint_disabled", "The endpoint is disabled: enable it first");
  const now = deps.clock.now();
  const body = deliveryBody({
    event: "ping",
    timestamp: now.toISOString(),
    workspace_id: workspaceId,
    data: { endpoint_id: endpointId, message: "A test event from the webhook settings" },
  });
  return deliveryView(await startDelivery(deps, { workspaceId, endpointId, event: "ping", body }));
}
