// Workspace API tokens: created by admins (the token shown once, its hash stored), listed without
// any secret, revoked at once; and the check of a token a request presents (authenticate), which
// notes when and from where it was last used. A token acts as its workspace (TokenActor).
import type { Clock } from "../../lib/clock.js";
import { recordAudit, type AuditContext, type AuditSource } from "../audit/audit-log.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import { afterTimeAndId, type TimeIdKey } from "../../lib/keyset.js";
import { domainErrorClass } from "../errors.js";
import type { MemberActor, TokenActor } from "../workspaces/actor.js";
import { can, type Role } from "../workspaces/permissions.js";
import { TOKEN_SCOPES, type TokenScope } from "./token-scopes.js";
import { hashApiToken, isWellFormedApiToken, newApiToken } from "./token-secret.js";

/** Tokens not revoked that a workspace may hold at once. */
export const MAX_ACTIVE_TOKENS = 100;
// last_used_at is refreshed at most this often (or when the address changes): no write per request.
const LAST_USED_RESOLUTION_MS = 60_000;

export const ApiTokenNotFound = domainErrorClass(
  "ApiTokenNotFound",
  "not_found",
  "not_found",
  "No such API token in this workspace",
);

export const TooManyApiTokens = domainErrorClass(
  "TooManyApiTokens",
  "conflict",
  "too_many_tokens",
  `A workspace holds at most ${MAX_ACTIVE_TOKENS} API tokens that are not revoked: revoke one first`,
);

export interface NewApiToken {
  name: string;
  scopes: TokenScope[];
  /** null or absent: never expires. */
  expires_at?: Date | null;
}

type TokenRow = {
  id: string;
  name: string;
  hint: string;
  scopes: string[];
  createdBy: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  lastUsedFrom: string | null;
};

/**
 * A token stands only while the member who created it still manages the workspace's tokens: a
 * creator removed from the workspace, demoted below admin or deleted takes the token's authority
 * with them (it answers 401 until they manage tokens again), so that nobody keeps a way in that
 * outlives their role.
 */
const creatorManages = (role: Role | null) => role !== null && can(role, "tokens:manage");

/** A token as the API lists it: never its secret, only the hint. */
export function apiTokenView(row: TokenRow, now: Date, creatorRole: Role | null) {
  const status = row.revokedAt
    ? ("revoked" as const)
    : row.expiresAt && row.expiresAt.getTime() <= now.getTime()
      ? ("expired" as const)
      : creatorManages(creatorRole)
        ? ("active" as const)
        : ("creator_left" as const);
  return {
    id: row.id,
    name: row.name,
    hint: row.hint,
    scopes: TOKEN_SCOPES.filter((scope) => row.scopes.includes(scope)),
    status,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    last_used_from: row.lastUsedFrom,
  };
}

export type ApiTokenView = ReturnType<typeof apiTokenView>;

/** A token's caller once it is checked: who acts, and what it may do. */
export interface TokenCaller extends TokenActor {
  scopes: TokenScope[];
}

/** Why a presented token does not authenticate (each answers 401). */
export type TokenRefusal = "malformed" | "unknown" | "revoked" | "expired" | "creator_left";

export interface ApiTokensDeps {
  prisma: PrismaClient;
  clock: Clock;
}

const TOKEN_SELECT = {
  id: true,
  name: true,
  hint: true,
  scopes: true,
  createdBy: true,
  createdAt: true,
  expiresAt: true,
  revokedAt: true,
  lastUsedAt: true,
  lastUsedFrom: true,
} as const;

/** A new token of the actor's workspace: the answer holds the token itself, this once. */
export async function createApiToken(
  { prisma, clock }: ApiTokensDeps,
  actor: MemberActor,
  input: NewApiToken,
  audit?: AuditSource,
) {
  const workspaceId = actor.workspace.workspaceId;
  const now = clock.now();
  const { token, hash, hint } = newApiToken();
  const row = await prisma.$transaction(async (tx) => {
    // Serialises creations in the workspace, so that two at once cannot pass the count together.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`api_tokens:${workspaceId}`}))`;
    const active = await tx.apiToken.count({ where: { workspaceId, revokedAt: null } });
    if (active >= MAX_ACTIVE_TOKENS) throw new TooManyApiTokens();
    const created = await tx.apiToken.create({
      data: {
        id: newId("tok"),
        workspaceId,
        name: input.name,
        tokenHash: hash,
        hint,
        scopes: [...new Set(input.scopes)],
        createdBy: actor.user.id,
        createdAt: now,
        expiresAt: input.expires_at ?? null,
      },
      select: TOKEN_SELECT,
    });
    if (audit)
      await recordAudit(
        tx,
        clock,
        { actor, source: audit },
        {
          action: "token.created",
          object: { kind: "token", id: created.id },
          details: { name: created.name, scopes: created.scopes },
        },
      );
    return created;
  });
  return { ...apiTokenView(row, now, actor.workspace.role), token };
}

export async function listApiTokens(
  { prisma, clock }: ApiTokensDeps,
  workspaceId: string,
  query: { limit: number; after?: TimeIdKey },
) {
  const rows = await prisma.apiToken.findMany({
    where: { workspaceId, ...afterTimeAndId(query.after, { time: "createdAt", id: "id" }, "asc") },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: query.limit,
    select: TOKEN_SELECT,
  });
  const now = clock.now();
  const creatorRole = await creatorRoles(prisma, workspaceId, rows);
  return rows.map((row) => apiTokenView(row, now, creatorRole(row)));
}

/** The current role in the workspace of each token's creator, one query for all (null: no longer a member). */
async function creatorRoles(prisma: PrismaClient, workspaceId: string, rows: Array<{ createdBy: string | null }>) {
  const userIds = [...new Set(rows.flatMap((row) => (row.createdBy ? [row.createdBy] : [])))];
  const members =
    userIds.length === 0
      ? []
      : await prisma.membership.findMany({
          where: { workspaceId, userId: { in: userIds } },
          select: { userId: true, role: true },
        });
  const roles = new Map(members.map((member) => [member.userId, member.role]));
  return (row: { createdBy: string | null }): Role | null => (row.createdBy && roles.get(row.createdBy)) || null;
}

/** Revokes the token at once: its next request answers 401. Revoking a revoked token changes nothing. */
export async function revokeApiToken(
  { prisma, clock }: ApiTokensDeps,
  workspaceId: string,
  id: string,
  audit?: AuditContext,
) {
  const now = clock.now();
  await prisma.$transaction(async (tx) => {
    const { count } = await tx.apiToken.updateMany({
      where: { id, workspaceId, revokedAt: null },
      data: { revokedAt: now },
    });
    // Only the revocation that took effect is recorded: a repeat changes nothing.
    if (audit && count > 0) {
      const { name } = await tx.apiToken.findUniqueOrThrow({ where: { id }, select: { name: true } });
      await recordAudit(tx, clock, audit, {
        action: "token.revoked",
        object: { kind: "token", id },
        details: { name },
      });
    }
  });
  const row = await prisma.apiToken.findFirst({ where: { id, workspaceId }, select: TOKEN_SELECT });
  if (!row) throw new ApiTokenNotFound();
  const creatorRole = await creatorRoles(prisma, workspaceId, [row]);
  return apiTokenView(row, now, creatorRole(row));
}

/**
 * The caller a presented token stands for, or why it does not: one query by its hash (none for a
 * string that is not a token), and a note of its use at most once a minute per address.
 */
export async function authenticateApiToken(
  { prisma, clock }: ApiTokensDeps,
  presented: string,
  source: string,
): Promise<{ caller: TokenCaller } | { refused: TokenRefusal }> {
  if (!isWellFormedApiToken(presented)) return { refused: "malformed" };
  const [row] = await sqlQuery<{
    id: string;
    name: string;
    scopes: string[];
    expires_at: Date | null;
    revoked_at: Date | null;
    last_used_at: Date | null;
    last_used_from: string | null;
    workspace_id: string;
    workspace_name: string;
    creator_role: Role | null;
  }>(
    prisma,
    Prisma.sql`
    SELECT t.id, t.name, t.scopes, t.expires_at, t.revoked_at, t.last_used_at, t.last_used_from,
           w.id AS workspace_id, w.name AS workspace_name, m.role::text AS creator_role
    FROM api_tokens t JOIN workspaces w ON w.id = t.workspace_id
    LEFT JOIN memberships m ON m.user_id = t.created_by AND m.workspace_id = t.workspace_id
    WHERE t.token_hash = ${hashApiToken(presented)}`,
  );
  if (!row) return { refused: "unknown" };
  const now = clock.now();
  if (row.revoked_at) return { refused: "revoked" };
  if (row.expires_at && row.expires_at.getTime() <= now.getTime()) return { refused: "expired" };
  if (!creatorManages(row.creator_role)) return { refused: "creator_left" };
  const stale = !row.last_used_at || now.getTime() - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS;
  if (stale || row.last_used_from !== source) {
    await prisma.apiToken.updateMany({ where: { id: row.id }, data: { lastUsedAt: now, lastUsedFrom: source } });
  }
  return {
    caller: {
      kind: "token",
      token: { id: row.id, name: row.name },
      workspace: { workspaceId: row.workspace_id, name: row.workspace_name },
      scopes: TOKEN_SCOPES.filter((scope) => row.scopes.includes(scope)),
    },
  };
}

export function createApiTokensService(deps: ApiTokensDeps) {
  return {
    create: (actor: MemberActor, input: NewApiToken, audit?: AuditSource) => createApiToken(deps, actor, input, audit),
    list: (workspaceId: string, query: { limit: number; after?: TimeIdKey }) => listApiTokens(deps, workspaceId, query),
    revoke: (workspaceId: string, id: string, audit?: AuditContext) => revokeApiToken(deps, workspaceId, id, audit),
    authenticate: (presented: string, source: string) => authenticateApiToken(deps, presented, source),
  };
}

export type ApiTokensService = ReturnType<typeof createApiTokensService>;
