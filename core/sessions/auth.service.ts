// Logging in, and what asks for the password again: checking an account's credentials (accepting
// an invite), moving a session to another workspace, changing the password. Every check passes
// the source's rate limit and the (account, source) throttle before any hashing.
import { randomBytes } from "node:crypto";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import type { PrismaClient } from "../../lib/db.js";
import type { Logger } from "../../lib/logger.js";
import { recordAuditIn, recordLogin, type AuditSource } from "../audit/audit-log.js";
import { hashPassword, verifyPassword } from "../users/password.js";
import { PasswordResetRequired } from "../users/user-errors.js";
import { lockAccount, revokePendingResets } from "../workspaces/reset-binding.js";
import type { AuthContext, SessionService } from "./sessions.service.js";
import { DomainError } from "../errors.js";
import type { RateLimiter } from "../rate-limiter.js";
import { loginSource, type LoginThrottle } from "./login-throttle.js";

export interface AuthServiceDeps {
  prisma: PrismaClient;
  clock: Clock;
  logger: Logger;
  config: Pick<
    Config,
    | "PASSWORD_HASH_ITERATIONS"
    | "LOGIN_RATE_WINDOW"
    | "LOGIN_MAX_ATTEMPTS_PER_IP"
    | "LOGIN_FREE_FAILURES"
    | "LOGIN_MAX_DELAY"
  >;
  sessions: SessionService;
  rateLimiter: RateLimiter;
  loginThrottle: LoginThrottle;
}

/** What a login asks for: the account's e-mail and password, and the workspace to open (else its first). */
export interface LoginInput {
  email: string;
  password: string;
  workspaceId?: string;
}

const invalidCredentials = () => new DomainError("unauthenticated", "invalid_credentials", "Invalid email or password");
const notMember = (message: string) => new DomainError("forbidden", "forbidden", message);

interface AuthContextDeps extends AuthServiceDeps {
  /**
   * Unknown e-mail addresses are checked against this hash so that they cost what a real check
   * costs: the answer's timing does not tell whether an account exists.
   */
  dummyHash: Promise<string>;
}

const sourceKey = (source: string) => `login:ip:${source}`;

/**
 * Before any hashing: the source's attempts across accounts (a fixed window), then the
 * (account, source) pair's delay, which takes this attempt as a failure until it succeeds.
 */
async function checkLimits(deps: AuthContextDeps, account: string, source: string) {
  const { rateLimiter, config } = deps;
  const perSource = await rateLimiter.hit(sourceKey(source), config.LOGIN_RATE_WINDOW);
  if (perSource.count > config.LOGIN_MAX_ATTEMPTS_PER_IP) {
    throw rateLimiter.tooManyRequests("Too many login attempts from this address; try again later", perSource.resetAt);
  }
  await deps.loginThrottle.attempt(account, source);
}

/**
 * Verifies a password; upgrades an old hash in the background after a success. A password
 * someone else chose is refused once it is known to be right (before, it answers as any wrong
 * one: the refusal must not tell anyone but its holder that the account is marked).
 */
async function checkPassword(
  { prisma, config, logger, dummyHash }: AuthContextDeps,
  user: { id: string; passwordHash: string; passwordResetRequired: boolean } | null,
  password: string,
) {
  const stored = user?.passwordHash ?? (await dummyHash);
  const check = await verifyPassword(password, stored, config.PASSWORD_HASH_ITERATIONS);
  if (!user || !check.valid) return false;
  if (user.passwordResetRequired) throw new PasswordResetRequired();
  if (check.needsRehash) {
    void hashPassword(password, config.PASSWORD_HASH_ITERATIONS)
      .then((passwordHash) =>
        prisma.user.updateMany({ where: { id: user.id, passwordHash: stored }, data: { passwordHash } }),
      )
      .catch((err: unknown) => logger.error({ err, userId: user.id }, "password re-hash failed"));
  }
  return true;
}

/**
 * The account of an e-mail whose password is given, checked as a login is (the same limits and
 * throttle, 401 invalid_credentials), without opening a session: accepting an invite uses it.
 */
async function checkCredentials(
  deps: AuthContextDeps,
  email: string,
  password: string,
  ip: string,
): Promise<{ id: string }> {
  const source = loginSource(ip);
  await checkLimits(deps, email, source);
  const user = await deps.prisma.user.findUnique({
    where: { email },
    select: { id: true, passwordHash: true, passwordResetRequired: true },
  });
  if (!(await checkPassword(deps, user, password)) || !user) throw invalidCredentials();
  await deps.loginThrottle.succeeded(email, source);
  return { id: user.id };
}

/**
 * Logs in. Each attempt past the limits writes its audit rows (core/audit/): a success, or a
 * failure with its reason, in the account's workspaces (none for an unknown address); an attempt
 * refused by the limits writes nothing, so that the log grows no faster than they allow.
 */
async function login(
  deps: AuthContextDeps,
  input: LoginInput,
  ip: string,
  audit: AuditSource = {},
): Promise<{ token: string; context: AuthContext }> {
  const source = loginSource(ip);
  await checkLimits(deps, input.email, source);
  const user = await deps.prisma.user.findUnique({
    where: { email: input.email },
    select: {
      id: true,
      passwordHash: true,
      passwordResetRequired: true,
      memberships: { select: { workspaceId: true }, orderBy: { createdAt: "asc" } },
    },
  });
  const workspaceIds = user?.memberships.map((m) => m.workspaceId) ?? [];
  const attempt = { email: input.email, userId: user?.id, workspaceIds, source: audit };
  const refuse = async (reason: string, error: Error) => {
    await recordLogin(deps.prisma, deps.clock, { ...attempt, succeeded: false, reason });
    return error;
  };
  let valid: boolean;
  try {
    valid = await checkPassword(deps, user, input.password);
  } catch (error) {
    if (error instanceof PasswordResetRequired) throw await refuse("password_reset_required", error);
    throw error;
  }
  if (!valid || !user) throw await refuse(user ? "invalid_password" : "unknown_account", invalidCredentials());
  await deps.loginThrottle.succeeded(input.email, source);

  const workspaceId = input.workspaceId ?? workspaceIds[0];
  if (!workspaceId) throw await refuse("no_workspace", notMember("This account is not a member of any workspace"));
  if (!workspaceIds.includes(workspaceId))
    throw await refuse("not_member", notMember("You are not a member of that workspace"));
  const session = await deps.sessions.create(user.id, workspaceId);
  await recordLogin(deps.prisma, deps.clock, { ...attempt, succeeded: true });
  return session;
}

/** Moves the caller's session to another workspace they are a member of. */
async function switchWorkspace(
  { prisma, sessions }: AuthContextDeps,
  auth: AuthContext,
  workspaceId: string,
): Promise<AuthContext> {
  const membership = await prisma.membership.findUnique({
    where: { userId_workspaceId: { userId: auth.user.id, workspaceId } },
    select: { role: true },
  });
  if (!membership) throw notMember("You are not a member of that workspace");
  return sessions.switchWorkspace(auth.sessionId, workspaceId);
}

/**
 * Changes the password after checking the current one, ends every session of the user,
 * and opens a new one for the caller in the same workspace. Recorded (auth.password_changed) in
 * each of the user's workspaces, in the change's transaction; a refused attempt writes nothing.
 */
async function changePassword(
  deps: AuthContextDeps,
  auth: AuthContext,
  passwords: { current: string; next: string },
  ip: string,
  audit: AuditSource = {},
): Promise<{ token: string; context: AuthContext }> {
  const { prisma, config, sessions } = deps;
  const source = loginSource(ip);
  await checkLimits(deps, auth.user.email, source);
  const user = await prisma.user.findUniqueOrThrow({
    where: { id: auth.user.id },
    select: { id: true, passwordHash: true },
  });
  const check = await verifyPassword(passwords.current, user.passwordHash, config.PASSWORD_HASH_ITERATIONS);
  if (!check.valid)
    throw new DomainError("forbidden", "invalid_current_password", "The current password is not correct");
  await deps.loginThrottle.succeeded(auth.user.email, source);
  const passwordHash = await hashPassword(passwords.next, config.PASSWORD_HASH_ITERATIONS);
  const now = deps.clock.now();
  await prisma.$transaction(async (tx) => {
    await lockAccount(tx, user.id);
    await tx.user.update({ where: { id: user.id }, data: { passwordHash, passwordChangedAt: now } });
    // A reset link issued before stops here: it was issued against the password just replaced.
    await revokePendingResets(tx, user.id, now);
    const memberships = await tx.membership.findMany({ where: { userId: user.id }, select: { workspaceId: true } });
    await recordAuditIn(
      tx,
      deps.clock,
      {
        workspaceIds: memberships.map((m) => m.workspaceId),
        who: { kind: "person", id: user.id, label: auth.user.email },
        source: audit,
      },
      { action: "auth.password_changed", object: { kind: "user", id: user.id } },
    );
  });
  await sessions.endAllForUser(user.id);
  return sessions.create(user.id, auth.workspace.workspaceId);
}

export function createAuthService(deps: AuthServiceDeps) {
  const context: AuthContextDeps = {
    ...deps,
    dummyHash: hashPassword(randomBytes(16).toString("hex"), deps.config.PASSWORD_HASH_ITERATIONS),
  };
  return {
    checkCredentials: (email: string, password: string, ip: string) => checkCredentials(context, email, password, ip),
    login: (input: LoginInput, ip: string, audit?: AuditSource) => login(context, input, ip, audit),
    switchWorkspace: (auth: AuthContext, workspaceId: string) => switchWorkspace(context, auth, workspaceId),
    changePassword: (
      auth: AuthContext,
      currentPassword: string,
      newPassword: string,
      ip: string,
      audit?: AuditSource,
    ) => changePassword(context, auth, { current: currentPassword, next: newPassword }, ip, audit),
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
