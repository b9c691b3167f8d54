// A workspace's webhook endpoints: listed with the secret's dates, created (with the workspace's
// secret on the first), changed and deleted.
import type { PrismaClient } from "../../../lib/db.js";
import { parseAddress, refusedRange, type Allowlist } from "../../../lib/egress/address-policy.js";
import { newId } from "../../../lib/ids.js";
import { afterTimeAndId } from "../../../lib/keyset.js";
import { generateWebhookSecret } from "../../../lib/webhooks/signing.js";
import { decodeCursor, keysetPage } from "../../http/cursor.js";
import { badRequest, notFound } from "../../http/errors.js";
import { byCreation, endpointView, isCreationCursor } from "./webhook-views.js";
import type { CreateEndpointInput, UpdateEndpointInput } from "./webhooks.schema.js";

/** Literal private addresses are refused at once; host names are checked at every delivery. */
function checkTarget(allowlist: Allowlist, url: string) {
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

export async function endpointOf(prisma: PrismaClient, workspaceId: string, id: string) {
  const endpoint = await prisma.webhookEndpoint.findFirst({ where: { id, workspaceId } });
  if (!endpoint) throw notFound("No such webhook endpoint");
  return endpoint;
}

/** A page of endpoints in the order they were created, and the secret's dates. */
export async function listEndpoints(
  prisma: PrismaClient,
  workspaceId: string,
  query: { limit: number; cursor?: string },
) {
  const after = decodeCursor(query.cursor, isCreationCursor);
  const [rows, secret] = await Promise.all([
    prisma.webhookEndpoint.findMany({
      where: {
        workspaceId,
        ...afterTimeAndId(after && { time: new Date(after.t), id: after.id }, { time: "createdAt", id: "id" }, "asc"),
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
}

/** The answer carries `secret` when this call generated the workspace's secret (shown once). */
export async function createEndpoint(
  { prisma, allowlist }: { prisma: PrismaClient; allowlist: Allowlist },
  workspaceId: string,
  input: CreateEndpointInput,
) {
  checkTarget(allowlist, input.url);
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
}

export async function updateEndpoint(
  { prisma, allowlist }: { prisma: PrismaClient; allowlist: Allowlist },
  workspaceId: string,
  id: string,
  input: UpdateEndpointInput,
) {
  await endpointOf(prisma, workspaceId, id);
  if (input.url !== undefined) checkTarget(allowlist, input.url);
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
}

/** Deletes the endpoint and its delivery log; deliveries in flight stop at their next attempt. */
export async function removeEndpoint(prisma: PrismaClient, workspaceId: string, id: string) {
  await endpointOf(prisma, workspaceId, id);
  await prisma.webhookEndpoint.delete({ where: { id } });
  return { ok: true };
}
