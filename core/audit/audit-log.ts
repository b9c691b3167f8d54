// The audit log's writer and reader: one row per action (who, when, from where, what, on which
// object), written by the service that made the change, in its transaction when it has one, so a
// change is never without its row. Rows hold names, ids, types and roles, never a secret value.
import type { Clock } from "../../lib/clock.js";
import type { Prisma, PrismaClient } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import type { Actor } from "../workspaces/actor.js";
import type { AuditAction, AuditObjectKind } from "./audit-actions.js";

/** Where a request came from, as the API saw it. */
export interface AuditSource {
  ip?: string;
  userAgent?: string;
}

/** Who acted and from where: what a service needs to write a row, handed to it by the API. */
export interface AuditContext {
  actor: Actor;
  source: AuditSource;
}

export interface AuditEntry {
  action: AuditAction;
  object?: { kind: AuditObjectKind; id: string };
  /** Small, never a secret: names, types, roles, version numbers, which fields changed. */
  details?: Record<string, string | number | boolean | null | string[]>;
}

/** A user agent is kept to this many characters. */
export const MAX_USER_AGENT = 256;

type Db = PrismaClient | Prisma.TransactionClient;

const bounded = (text: string | undefined, max: number) => (text === undefined ? null : text.slice(0, max));

/** Who a row names when the actor is not a request's (a person accepting a link, the operator). */
export interface AuditWho {
  kind: "person" | "token" | "system";
  id: string | null;
  label: string | null;
}

/**
 * Writes one row of the action in each of the workspaces (none: once, with no workspace, read
 * by no workspace's admins: only operators, from the table).
 */
export async function recordAuditIn(
  db: Db,
  clock: Clock,
  at: { workspaceIds: readonly string[]; who: AuditWho; source: AuditSource },
  entry: AuditEntry,
): Promise<void> {
  const now = clock.now();
  const workspaces = at.workspaceIds.length > 0 ? at.workspaceIds : [null];
  await db.auditEvent.createMany({
    data: workspaces.map((workspaceId) => ({
      id: newId("aud"),
      workspaceId,
      at: now,
      actorKind: at.who.kind,
      actorId: at.who.id,
      actorLabel: bounded(at.who.label ?? undefined, 320),
      sourceIp: bounded(at.source.ip, 64),
      userAgent: bounded(at.source.userAgent, MAX_USER_AGENT),
      action: entry.action,
      objectKind: entry.object?.kind ?? null,
      objectId: entry.object?.id ?? null,
      details: entry.details ?? undefined,
    })),
  });
}

/** Who an actor is, as a row names them. */
export function auditWho(actor: Actor): AuditWho {
  return actor.kind === "member"
    ? { kind: "person", id: actor.user.id, label: actor.user.email }
    : { kind: "token", id: actor.token.id, label: actor.token.name };
}

/** Writes one row for an action an actor (a person or a token) took in their workspace. */
export async function recordAudit(db: Db, clock: Clock, context: AuditContext, entry: AuditEntry): Promise<void> {
  const { actor, source } = context;
  await recordAuditIn(db, clock, { workspaceIds: [actor.workspace.workspaceId], who: auditWho(actor), source }, entry);
}

/**
 * Writes a login's row. A success is recorded in each workspace the person belongs to; a failure
 * for a known account likewise, and for an unknown address once with no workspace and naming no
 * one (what was typed as the address is not kept: it may be a password typed in the wrong field).
 */
export async function recordLogin(
  db: Db,
  clock: Clock,
  input: {
    succeeded: boolean;
    email: string;
    userId?: string;
    workspaceIds: readonly string[];
    source: AuditSource;
    reason?: string;
  },
): Promise<void> {
  await recordAuditIn(
    db,
    clock,
    {
      workspaceIds: input.workspaceIds,
      who: { kind: "person", id: input.userId ?? null, label: input.userId ? input.email : null },
      source: input.source,
    },
    {
      action: input.succeeded ? "auth.login_succeeded" : "auth.login_failed",
      object: input.userId ? { kind: "user", id: input.userId } : undefined,
      details: input.reason ? { reason: input.reason } : undefined,
    },
  );
}

export interface AuditQuery {
  actor?: string;
  /** An action, or a prefix of one ending in "." (credential.). */
  action?: string;
  objectId?: string;
  since?: Date;
  until?: Date;
  limit: number;
  /** Newest first: rows before this one. */
  before?: { at: Date; id: string };
}

/** A workspace's rows, newest first, filtered. */
export async function listAuditEvents(prisma: PrismaClient, workspaceId: string, query: AuditQuery) {
  const and: Prisma.AuditEventWhereInput[] = [{ workspaceId }];
  if (query.actor) and.push({ actorId: query.actor });
  if (query.action)
    and.push(query.action.endsWith(".") ? { action: { startsWith: query.action } } : { action: query.action });
  if (query.objectId) and.push({ objectId: query.objectId });
  if (query.since) and.push({ at: { gte: query.since } });
  if (query.until) and.push({ at: { lt: query.until } });
  if (query.before)
    and.push({
      OR: [{ at: { lt: query.before.at } }, { at: query.before.at, id: { lt: query.before.id } }],
    });
  return prisma.auditEvent.findMany({
    where: { AND: and },
    orderBy: [{ at: "desc" }, { id: "desc" }],
    take: query.limit,
  });
}

export type AuditRow = Awaited<ReturnType<typeof listAuditEvents>>[number];

export function auditEventView(row: AuditRow) {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: { kind: row.actorKind, id: row.actorId, label: row.actorLabel },
    source_ip: row.sourceIp,
    user_agent: row.userAgent,
    action: row.action,
    object: row.objectKind ? { kind: row.objectKind, id: row.objectId } : null,
    details: (row.details ?? {}) as Record<string, unknown>,
  };
}

export type AuditEventView = ReturnType<typeof auditEventView>;

/** The reader the API holds: a workspace's rows, nothing that changes them. */
export function createAuditService({ prisma }: { prisma: PrismaClient }) {
  return {
    list: (workspaceId: string, query: AuditQuery) => listAuditEvents(prisma, workspaceId, query),
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
