// A workspace's webhook endpoints and its signing secret.
import { recordAudit, type AuditContext } from "../audit/audit-log.js";
import type { EventType } from "../../lib/events.js";
import { parseAddress, refusedRange } from "../../lib/egress/address-policy.js";
import { newId } from "../../lib/ids.js";
import { afterTimeAndId, type TimeIdKey } from "../../lib/keyset.js";
import { generateWebhookSecret } from "./signing.js";
import { WebhookEndpointNotFound, WebhookTargetRefused } from "./webhook-errors.js";
import type { WebhooksContext } from "./webhooks-context.js";
import { endpointView } from "./webhook-views.js";

/** A new endpoint: an http(s) URL without credentials, the events it receives. */
export interface CreateEndpointInput {
  url: string;
  events: EventType[];
  enabled: boolean;
  description?: string;
}

/** What an update changes (absent: unchanged; a null description clears it). */
export interface UpdateEndpointInput {
  url?: string;
  events?: EventType[];
  enabled?: boolean;
  description?: string | null;
}

/** Literal private addresses are refused at once; host names are checked at every delivery. */
function checkTarget({ allowlist }: Pick<WebhooksContext, "allowlist">, url: string) {
  const host = new URL(url).hostname;
  const address = parseAddress(host);
  if (allowlist.allowsHost(host) || !address || allowlist.allowsAddress(address)) return;
  const rule = refusedRange(address);
  if (rule) throw new WebhookTargetRefused(rule);
}

export async function endpointOf({ prisma }: Pick<WebhooksContext, "prisma">, workspaceId: string, id: string) {
  const endpoint = await prisma.webhookEndpoint.findFirst({ where: { id, workspaceId } });
  if (!endpoint) throw new WebhookEndpointNotFound();
  return endpoint;
}

/**
 * Up to `limit` endpoints in the order they were created (after the one `after` keys: its
 * creation and id), and the secret's dates.
 */
export async function listEndpoints(
  { prisma }: Pick<WebhooksContext, "prisma">,
  workspaceId: string,
  query: { limit: number; after?: TimeIdKey },
) {
  const [rows, secret] = await Promise.all([
    prisma.webhookEndpoint.findMany({
      where: { workspaceId, ...afterTimeAndId(query.after, { time: "createdAt", id: "id" }, "asc") },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: query.limit,
    }),
    prisma.webhookSecret.findUnique({ where: { workspaceId }, select: { createdAt: true, rotatedAt: true } }),
  ]);
  return {
    items: rows.map(endpointView),
    secret: secret
      ? { created_at: secret.createdAt.toISOString(), rotated_at: secret.rotatedAt?.toISOString() ?? null }
      : null,
  };
}

/**
 * What the audit log keeps of an endpoint: its host, never its whole URL (a chat service's hook
 * URL is its secret), and its events and state.
 */
const endpointDetails = (endpoint: { url: string; events: string[]; enabled: boolean }) => ({
  host: new URL(endpoint.url).host,
  events: endpoint.events,
  enabled: endpoint.enabled,
});

/** The answer carries `secret` when this call generated the workspace's secret (shown once). */
export async function createEndpoint(
  context: WebhooksContext,
  workspaceId: string,
  input: CreateEndpointInput,
  audit?: AuditContext,
) {
  checkTarget(context, input.url);
  return context.prisma.$transaction(async (tx) => {
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
    if (audit)
      await recordAudit(tx, context.clock, audit, {
        action: "webhook.created",
        object: { kind: "webhook", id: endpoint.id },
        details: { ...endpointDetails(endpoint), secret_created: secret !== undefined },
      });
    return { ...endpointView(endpoint), ...(secret ? { secret } : {}) };
  });
}

export async function updateEndpoint(
  context: WebhooksContext,
  workspaceId: string,
  id: string,
  input: UpdateEndpointInput,
  audit?: AuditContext,
) {
  const before = await endpointOf(context, workspaceId, id);
  if (input.url !== undefined) checkTarget(context, input.url);
  const endpoint = await context.prisma.$transaction(async (tx) => {
    const updated = await tx.webhookEndpoint.update({
      where: { id },
      data: {
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.events !== undefined ? { events: input.events } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
      },
    });
    const changed = (["url", "events", "enabled", "description"] as const).filter(
      (field) => JSON.stringify(before[field]) !== JSON.stringify(updated[field]),
    );
    if (audit && changed.length > 0)
      await recordAudit(tx, context.clock, audit, {
        action: "webhook.updated",
        object: { kind: "webhook", id },
        details: { ...endpointDetails(updated), changed: [...changed] },
      });
    return updated;
  });
  return endpointView(endpoint);
}

/** Deletes the endpoint and its delivery log; deliveries in flight stop at their next attempt. */
export async function removeEndpoint(
  context: Pick<WebhooksContext, "prisma" | "clock">,
  workspaceId: string,
  id: string,
  audit?: AuditContext,
) {
  const endpoint = await endpointOf(context, workspaceId, id);
  await context.prisma.$transaction(async (tx) => {
    await tx.webhookEndpoint.delete({ where: { id } });
    if (audit)
      await recordAudit(tx, context.clock, audit, {
        action: "webhook.deleted",
        object: { kind: "webhook", id },
        details: endpointDetails(endpoint),
      });
  });
  return { ok: true };
}

/** A new secret, shown once; the previous one keeps signing for WEBHOOK_SECRET_GRACE. */
export async function rotateSecret(
  { prisma, clock, config }: WebhooksContext,
  workspaceId: string,
  audit?: AuditContext,
) {
  const now = clock.now();
  const secret = generateWebhookSecret();
  const previousExpiresAt = new Date(now.getTime() + config.WEBHOOK_SECRET_GRACE);
  const existing = await prisma.webhookSecret.findUnique({ where: { workspaceId } });
  await prisma.$transaction(async (tx) => {
    await tx.webhookSecret.upsert({
      where: { workspaceId },
      create: { workspaceId, secret },
      update: {
        secret,
        previousSecret: existing?.secret ?? null,
        previousExpiresAt: existing ? previousExpiresAt : null,
        rotatedAt: now,
      },
    });
    // Dates only: neither secret is kept.
    if (audit)
      await recordAudit(tx, clock, audit, {
        action: "webhook.secret_rotated",
        object: { kind: "workspace", id: workspaceId },
        details: { previous_secret_expires_at: existing ? previousExpiresAt.toISOString() : null },
      });
  });
  return {
    secret,
    previous_secret_expires_at: existing ? previousExpiresAt.toISOString() : null,
  };
}
