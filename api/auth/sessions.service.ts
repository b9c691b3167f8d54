import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import type { PrismaClient } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import type { Role } from "./permissions.js";
import { SESSION_LIFETIME_SECONDS, hashSessionToken, newSessionToken } from "./session-cookie.js";

export interface UserView {
  id: string;
  email: string;
  name: string;
}

export interface WorkspaceView {
  workspaceId: string;
  name: string;
  role: Role;
}

/** Who is calling: the session, its user, and the workspace it acts in with the user's role there. */
export interface AuthContext {
  sessionId: string;
  user: UserView;
  workspace: WorkspaceView;
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

export function createSessionService({ prisma, clock, config }: SessionDeps) {
  const isExpired = (session: { expiresAt: Date; lastSeenAt: Date }, now: Date) =>
    session.expiresAt.getTime() <= now.getTime() ||
    session.lastSeenAt.getTime() + config.SESSION_IDLE_TIMEOUT <= now.getTime();

  return {
    /** A new session (and a new token: never reuse one across logins). */
    async create(userId: string, workspaceId: string): Promise<{ token: string; context: AuthContext }> {
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
    },

    /** The session of a cookie token, or undefined when unknown, expired or idle too long. */
    async resolve(token: string): Promise<AuthContext | undefined> {
      const now = clock.now();
      const session = await prisma.session.findUnique({
        where: { tokenHash: hashSessionToken(token) },
        include: membershipInclude,
      });
      if (!session) return undefined;
      if (isExpired(session, now)) {
        await prisma.session.deleteMany({ where: { id: session.id } });
        return undefined;
      }
      if (now.getTime() - session.lastSeenAt.getTime() >= LAST_SEEN_RESOLUTION_MS) {
        await prisma.session.updateMany({ where: { id: session.id }, data: { lastSeenAt: now } });
      }
      return toContext(session);
    },

    async end(sessionId: string): Promise<void> {
      await prisma.session.deleteMany({ where: { id: sessionId } });
    },

    /** Ends every session of the user (password change); returns how many. */
    async endAllForUser(userId: string): Promise<number> {
      return (await prisma.session.deleteMany({ where: { userId } })).count;
    },

    /** Moves the session to another workspace of the same user. */
    async switchWorkspace(sessionId: string, workspaceId: string): Promise<AuthContext> {
      const session = await prisma.session.update({
        where: { id: sessionId },
        data: { workspaceId },
        include: membershipInclude,
      });
      return toContext(session);
    },

    /** Deletes sessions past their lifetime or idle timeout. */
    async purgeExpired(): Promise<number> {
      const now = clock.now();
      const { count } = await prisma.session.deleteMany({
        where: {
          OR: [
            { expiresAt: { lte: now } },
            { lastSeenAt: { lte: new Date(now.getTime() - config.SESSION_IDLE_TIMEOUT) } },
          ],
        },
      });
      return count;
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
