// Webhook settings of a workspace: endpoints, the signing secret, the delivery log, redelivery
// and test pings. Deliveries themselves are deliverWebhook workflows run by the worker. This file
// only wires: each behaviour is a function in a file of its own beside it.
import type { Client } from "@temporalio/client";
import type { Clock } from "../../../lib/clock.js";
import type { Config } from "../../../lib/config.js";
import type { PrismaClient } from "../../../lib/db.js";
import { parseAllowlist } from "../../../lib/egress/address-policy.js";
import { getDelivery, listDeliveries, pingEndpoint, redeliver, type DeliveryStartDeps } from "./webhook-deliveries.js";
import { createEndpoint, endpointOf, listEndpoints, removeEndpoint, updateEndpoint } from "./webhook-endpoints.js";
import { rotateWebhookSecret } from "./webhook-secret.js";
import { endpointView } from "./webhook-views.js";
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

export function createWebhooksService(deps: WebhooksServiceDeps) {
  const { prisma, clock, temporal, config } = deps;
  const endpoints = { prisma, allowlist: parseAllowlist(config.EGRESS_ALLOWLIST) };
  const deliveries: DeliveryStartDeps = {
    prisma,
    clock,
    temporal,
    startOptions: {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      retryDelaysMs: config.WEBHOOK_RETRY_DELAYS,
      timeoutMs: config.WEBHOOK_TIMEOUT,
    },
  };
  return {
    list: (workspaceId: string, query: { limit: number; cursor?: string }) => listEndpoints(prisma, workspaceId, query),
    async get(workspaceId: string, id: string) {
      return endpointView(await endpointOf(prisma, workspaceId, id));
    },
    create: (workspaceId: string, input: CreateEndpointInput) => createEndpoint(endpoints, workspaceId, input),
    update: (workspaceId: string, id: string, input: UpdateEndpointInput) =>
      updateEndpoint(endpoints, workspaceId, id, input),
    remove: (workspaceId: string, id: string) => removeEndpoint(prisma, workspaceId, id),
    rotateSecret: (workspaceId: string) =>
      rotateWebhookSecret({ prisma, clock, graceMs: config.WEBHOOK_SECRET_GRACE }, workspaceId),
    deliveries: (
      workspaceId: string,
      endpointId: string,
      query: { status?: "pending" | "succeeded" | "failed"; limit: number; cursor?: string },
    ) => listDeliveries(prisma, workspaceId, endpointId, query),
    delivery: (workspaceId: string, id: string) => getDelivery(prisma, workspaceId, id),
    redeliver: (workspaceId: string, id: string) => redeliver(deliveries, workspaceId, id),
    ping: (workspaceId: string, endpointId: string) => pingEndpoint(deliveries, workspaceId, endpointId),
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
