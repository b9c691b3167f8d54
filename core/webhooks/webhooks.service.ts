// Webhook settings of a workspace: endpoints and the signing secret (webhook-endpoints.ts), the
// delivery log, redelivery and test pings (webhook-deliveries.ts). Deliveries themselves are
// deliverWebhook workflows run by the worker. The factory only wires.
import type { AuditContext } from "../audit/audit-log.js";
import { parseAllowlist } from "../../lib/egress/address-policy.js";
import type { WebhooksContext, WebhooksServiceDeps } from "./webhooks-context.js";
import { getDelivery, listDeliveries, pingEndpoint, redeliver } from "./webhook-deliveries.js";
import {
  createEndpoint,
  endpointOf,
  listEndpoints,
  removeEndpoint,
  rotateSecret,
  updateEndpoint,
  type CreateEndpointInput,
  type UpdateEndpointInput,
} from "./webhook-endpoints.js";
import { endpointView } from "./webhook-views.js";

export function createWebhooksService(deps: WebhooksServiceDeps) {
  const { config } = deps;
  const context: WebhooksContext = {
    ...deps,
    allowlist: parseAllowlist(config.EGRESS_ALLOWLIST),
    startOptions: {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      retryDelaysMs: config.WEBHOOK_RETRY_DELAYS,
      timeoutMs: config.WEBHOOK_TIMEOUT,
    },
  };
  return {
    list: (workspaceId: string, query: Parameters<typeof listEndpoints>[2]) =>
      listEndpoints(context, workspaceId, query),
    get: async (workspaceId: string, id: string) => endpointView(await endpointOf(context, workspaceId, id)),
    create: (workspaceId: string, input: CreateEndpointInput, audit?: AuditContext) =>
      createEndpoint(context, workspaceId, input, audit),
    update: (workspaceId: string, id: string, input: UpdateEndpointInput, audit?: AuditContext) =>
      updateEndpoint(context, workspaceId, id, input, audit),
    remove: (workspaceId: string, id: string, audit?: AuditContext) => removeEndpoint(context, workspaceId, id, audit),
    rotateSecret: (workspaceId: string, audit?: AuditContext) => rotateSecret(context, workspaceId, audit),
    deliveries: (workspaceId: string, endpointId: string, query: Parameters<typeof listDeliveries>[3]) =>
      listDeliveries(context, workspaceId, endpointId, query),
    delivery: (workspaceId: string, id: string) => getDelivery(context, workspaceId, id),
    redeliver: (workspaceId: string, id: string) => redeliver(context, workspaceId, id),
    ping: (workspaceId: string, endpointId: string) => pingEndpoint(context, workspaceId, endpointId),
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
