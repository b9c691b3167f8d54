// Sessions: a member logged in to one of their workspaces, known by a random token whose hash
// alone is stored (the API carries the token in its session cookie).
import { createHash, randomBytes } from "node:crypto";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import type { UserView } from "../users/users.service.js";
import type { MemberActor } from "../workspaces/actor.js";
import type { Role } from "../workspaces/permissions.js";

/** The spec's session lifetime: 7 days, for the cookie and the stored session alike. */
export const SESSION_LIFETIME_SECONDS = 604_800;

/** 256 random bits, base64url: the cookie value. Only its hash is stored. */
export function newSessionToken(): string {
  return randomBytes(32).toString("base64url");
}

export function hashSessionToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Who is calling: the session, its user, and the workspace it acts in with the user's role there. */
export interface AuthContext extends MemberActor {
  sessionId: string;
}

// lastSeenAt is refreshed at most this often: idle detection does not need a write per request.
const LAST_SEEN_RESOLUTION_MS = 60_000;

const membershipInclude = {
  membership: {
    select: {
      role: true,
      user: { select: { id: true, email: true, name: true } },
      workspace: { select: { id: true, name: true } },
    },
  },
} as const;

type SessionRow = {
  id: string;
  membership: { role: Role; user: UserView; workspace: { id: string; name: string } };
};

function toContext(session: SessionRow): AuthContext {
  const { membership } = session;
  return {
    kind: "member",
    sessionId: session.id,
    user: membership.user,
    workspace: { workspaceId: membership.workspace.id, name: membership.workspace.name, role: membership.role },
  };
}

export interface SessionDeps {
  prisma: PrismaClient;
  clock: Clock;
  config: Pick<Config, "SESSION_IDLE_TIMEOUT">;
}

const isExpired = (
  { config }: Pick<SessionDeps, "config">,
  session: { expiresAt: Date; lastSeenAt: Date },
  now: Date,
) =>
  session.expiresAt.getTime() <= now.getTime() ||
  session.lastSeenAt.getTime() + config.SESSION_IDLE_TIMEOUT <= now.getTime();

/** A new session (and a new token: never reuse one across logins). */
export async function createSession(
  { prisma, clock }: SessionDeps,
  userId: string,
  workspaceId: string,
): Promise<{ token: string; context: AuthContext }> {
  const token = newSessionToken();
  const now = clock.now();
  const session = await prisma.session.create({
    data: {
      id: newId("ses"),
      tokenHash: hashSessionToken(token),
      userId,
      workspaceId,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_SECONDS * 1000),
    },
    include: membershipInclude,
  });
  return { token, context: toContext(session) };
}

/** The session of a cookie token, or undefined when unknown, expired or idle too long. */
export async function resolveSession(deps: SessionDeps, token: string): Promise<AuthContext | undefined> {
  const { prisma, clock } = deps;
  const now = clock.now();
  // One round trip on every authenticated request: the session with its member, user and workspace.
  const [row] = await sqlQuery<{
    id: string;
    expires_at: Date;
    last_seen_at: Date;
    role: Role;
    user_id: string;
    email: string;
    user_name: string;
    workspace_id: string;
    workspace_name: string;
  }>(
    prisma,
    Prisma.sql`
    SELECT s.id, s.expires_at, s.last_seen_at, m.role::text AS role, u.id AS user_id, u.email, u.name AS user_name,
           w.id AS workspace_id, w.name AS workspace_name
    FROM sessions s
    JOIN memberships m ON m.user_id = s.user_id AND m.workspace_id = s.workspace_id
    JOIN users u ON u.id = s.user_id
    JOIN workspaces w ON w.id = s.workspace_id
    WHERE s.token_hash = ${hashSessionToken(token)}`,
  );
  if (!row) return undefined;
  if (isExpired(deps, { expiresAt: row.expires_at, lastSeenAt: row.last_seen_at }, now)) {
    await prisma.session.deleteMany({ where: { id: row.id } });
    return undefined;
  }
  if (now.getTime() - row.last_seen_at.getTime() >= LAST_SEEN_RESOLUTION_MS) {
    await prisma.session.updateMany({ where: { id: row.id }, data: { lastSeenAt: now } });
  }
  return {
    kind: "member",
    sessionId: row.id,
    user: { id: row.user_id, email: row.email, name: row.user_name },
    workspace: { workspaceId: row.workspace_id, name: row.workspace_name, role: row.role },
  };
}

/** Moves the session to another workspace of the same user. */
export async function switchSessionWorkspace(
  { prisma }: Pick<SessionDeps, "prisma">,
  sessionId: string,
  workspaceId: string,
): Promise<AuthContext> {
  const session = await prisma.session.update({
    where: { id: sessionId },
    data: { workspaceId },
    include: membershipInclude,
  });
  return toContext(session);
}

/** Deletes sessions past their lifetime or idle timeout. */
export async function purgeExpiredSessions({ prisma, clock, config }: SessionDeps): Promise<number> {
  const now = clock.now();
  const { count } = await prisma.session.deleteMany({
    where: {
      OR: [{ expiresAt: { lte: now } }, { lastSeenAt: { lte: new Date(now.getTime() - config.SESSION_IDLE_TIMEOUT) } }],
    },
  });
  return count;
}

export function createSessionService(deps: SessionDeps) {
  const { prisma } = deps;
  return {
    create: (userId: string, workspaceId: string) => createSession(deps, userId, workspaceId),
    resolve: (token: string) => resolveSession(deps, token),
    async end(sessionId: string): Promise<void> {
      await prisma.session.deleteMany({ where: { id: sessionId } });
    },
    /** Ends every session of the user (password change); returns how many. */
    async endAllForUser(userId: string): Promise<number> {
      return (await prisma.session.deleteMany({ where: { userId } })).count;
    },
    switchWorkspace: (sessionId: string, workspaceId: string) => switchSessionWorkspace(deps, sessionId, workspaceId),
    purgeExpired: () => purgeExpiredSessions(deps),
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
