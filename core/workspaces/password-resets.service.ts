// Password resets: a one-time link that sets an account's password, issued by an owner or admin
// (members.service.ts) or the operator's CLI. With mail (link-delivery.ts) the link goes to the
// account's address only; without, to whoever issued it, who passes it on. Only the SHA-256 of
// the link's token is kept. A link stands only while the account is as it was issued against
// (reset-binding.ts): checked on its page and, last, in the transaction that uses it.
import { randomBytes } from "node:crypto";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import { hashLinkToken, LINK_TOKEN, newLinkToken } from "../../lib/crypto/link-tokens.js";
import type { Prisma, PrismaClient } from "../../lib/db.js";
import { auditWho, recordAuditIn, type AuditContext, type AuditSource, type AuditWho } from "../audit/audit-log.js";
import { hashPassword } from "../users/password.js";
import {
  PasswordResetExpired,
  PasswordResetNotFound,
  PasswordResetRevoked,
  PasswordResetUsed,
} from "../users/user-errors.js";
import type { LinkDelivery } from "./link-delivery.js";
import { passwordResetMail } from "./link-mails.js";
import { ResetHeldByOperator, ResetNeedsOperator } from "./member-errors.js";
import { managesEveryWorkspace } from "./member-rules.js";
import { accountState, lockAccount, resetStands } from "./reset-binding.js";

/** How long a reset link works: long enough to be passed on by hand, short for a link that opens an account. */
const PASSWORD_RESET_LIFETIME_MS = 24 * 3_600_000;

/** The dashboard's page that sets the new password (a path: the dashboard adds its own origin). */
const passwordResetPath = (token: string) => `/reset-password/${token}`;

/**
 * A new reset link. With mail (`delivery: "mail"`) it went to the account's address only; else
 * (`delivery: "link"`, no mail server) it is handed to the issuer, shown this once.
 */
export type PasswordResetIssued =
  | { email: string; reset_url: string; expires_at: string; delivery: "link" }
  | { email: string; expires_at: string; delivery: "mail" };

/** What the reset page shows before the new password is set. */
export interface PasswordResetPreview {
  email: string;
  expires_at: string;
}

/** Who a row names for what the operator's CLI does. */
const OPERATOR: AuditWho = { kind: "system", id: null, label: "operator" };

// Reset ids are the API's own (pwr_ and 96 random bits in hex, as newId makes the others).
const newResetId = () => `pwr_${randomBytes(12).toString("hex")}`;

interface PasswordResetsDeps {
  prisma: PrismaClient;
  clock: Clock;
  config: Pick<Config, "PASSWORD_HASH_ITERATIONS">;
  delivery: LinkDelivery;
}

type Db = PrismaClient | Prisma.TransactionClient;

const resetSelect = {
  id: true,
  userId: true,
  issuedBy: true,
  issuedAgainst: true,
  usedAt: true,
  revokedAt: true,
  expiresAt: true,
} as const;

/** The reset a token may still use: unknown 404, used 409, expired or revoked 410. */
async function openReset({ prisma, clock }: Pick<PasswordResetsDeps, "prisma" | "clock">, token: string) {
  if (!LINK_TOKEN.test(token)) throw new PasswordResetNotFound();
  const reset = await prisma.passwordReset.findUnique({
    where: { tokenHash: hashLinkToken(token) },
    select: resetSelect,
  });
  if (!reset) throw new PasswordResetNotFound();
  if (reset.usedAt) throw new PasswordResetUsed();
  if (reset.revokedAt) throw new PasswordResetRevoked();
  if (reset.expiresAt.getTime() <= clock.now().getTime()) throw new PasswordResetExpired();
  return reset;
}

/** An open reset that still stands; one that no longer does is revoked (410 reset_revoked from then on). */
async function standingReset(deps: Pick<PasswordResetsDeps, "prisma" | "clock">, token: string) {
  const reset = await openReset(deps, token);
  if (await resetStands(deps.prisma, reset)) return reset;
  await deps.prisma.passwordReset.updateMany({
    where: { id: reset.id, usedAt: null, revokedAt: null },
    data: { revokedAt: deps.clock.now() },
  });
  throw new PasswordResetRevoked();
}

/** Whether the operator's link for the account is pending: a member's issue must not replace it. */
async function operatorLinkPending(db: Db, userId: string, now: Date): Promise<boolean> {
  const pending = await db.passwordReset.count({
    where: { userId, issuedBy: null, usedAt: null, revokedAt: null, expiresAt: { gt: now } },
  });
  return pending > 0;
}

/**
 * A new reset link for the user, bound to the account as it is now. `issuedBy` is the member who
 * issues it (who must manage every workspace of the user, and cannot replace the operator's
 * pending link), or null for the operator. The user's other unused links stop once this one
 * reached them (by mail: once the mail server took it; a link it did not take is withdrawn, 503
 * mail_unavailable, the others left as they were), or at once when it is handed over.
 */
export async function issuePasswordReset(
  { prisma, clock, delivery }: Pick<PasswordResetsDeps, "prisma" | "clock" | "delivery">,
  userId: string,
  issuedBy: string | null,
  audit?: AuditContext,
): Promise<PasswordResetIssued> {
  const token = newLinkToken();
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + PASSWORD_RESET_LIFETIME_MS);
  const { id, email, issuer, workspaceIds } = await prisma.$transaction(async (tx) => {
    await lockAccount(tx, userId);
    const state = await accountState(tx, userId);
    if (!state) throw new PasswordResetNotFound();
    if (issuedBy !== null) {
      const manages = state.memberships.length > 0 && (await managesEveryWorkspace(tx, issuedBy, userId));
      if (!manages) throw new ResetNeedsOperator();
      if (await operatorLinkPending(tx, userId, now)) throw new ResetHeldByOperator();
    }
    const reset = await tx.passwordReset.create({
      data: {
        id: newResetId(),
        userId,
        tokenHash: hashLinkToken(token),
        issuedBy,
        issuedAgainst: state as unknown as Prisma.InputJsonObject,
        createdAt: now,
        expiresAt,
      },
      select: { id: true, issuer: { select: { name: true } } },
    });
    return {
      id: reset.id,
      email: state.email,
      issuer: reset.issuer?.name ?? null,
      workspaceIds: state.memberships.map((m) => m.workspace_id),
    };
  });
  if (delivery.mode === "mail") {
    try {
      await delivery.send(passwordResetMail({ email, issuer, path: passwordResetPath(token), expiresAt }));
    } catch (error) {
      await prisma.passwordReset.deleteMany({ where: { id, usedAt: null } });
      throw error;
    }
  }
  // Recorded once the link is out: in the issuer's workspace, or (the operator's CLI) in each of the account's.
  const recordedAt = audit
    ? { workspaceIds: [audit.actor.workspace.workspaceId], who: auditWho(audit.actor), source: audit.source }
    : { workspaceIds, who: OPERATOR, source: {} };
  await replacePendingResets(prisma, { id, userId, byOperator: issuedBy === null }, (tx) =>
    recordAuditIn(tx, clock, recordedAt, {
      action: "password_reset.issued",
      object: { kind: "user", id: userId },
      details: { email, delivery: delivery.mode },
    }),
  );
  return delivery.mode === "mail"
    ? { email, expires_at: expiresAt.toISOString(), delivery: "mail" }
    : { email, reset_url: passwordResetPath(token), expires_at: expiresAt.toISOString(), delivery: "link" };
}

/**
 * The user's other unused links go, unless a newer one replaced this one meanwhile (the account's
 * row held: two never remove each other). A member's link leaves the operator's where it is.
 */
async function replacePendingResets(
  prisma: PrismaClient,
  reset: { id: string; userId: string; byOperator: boolean },
  record: (tx: Prisma.TransactionClient) => Promise<void>,
) {
  await prisma.$transaction(async (tx) => {
    await lockAccount(tx, reset.userId);
    await record(tx);
    if ((await tx.passwordReset.count({ where: { id: reset.id } })) === 0) return;
    await tx.passwordReset.deleteMany({
      where: {
        userId: reset.userId,
        usedAt: null,
        id: { not: reset.id },
        ...(reset.byOperator ? {} : { issuedBy: { not: null } }),
      },
    });
  });
}

/** What the reset page shows; the token is the only authority, while the link stands. */
export async function previewPasswordReset(
  deps: Pick<PasswordResetsDeps, "prisma" | "clock">,
  token: string,
): Promise<PasswordResetPreview> {
  const reset = await standingReset(deps, token);
  const issuedAgainst = reset.issuedAgainst as { email: string };
  return { email: issuedAgainst.email, expires_at: reset.expiresAt.toISOString() };
}

/**
 * Sets the new password (the API parsed it with passwordSchema): burns the link, lifts a
 * required reset, drops the user's other links and ends every session of the user, in one
 * transaction, which checks last that the link still stands (the account's row held meanwhile).
 */
export async function completePasswordReset(
  deps: PasswordResetsDeps,
  token: string,
  password: string,
  source: AuditSource = {},
): Promise<{ userId: string; email: string }> {
  // Checked before hashing, so that a used, expired or revoked link costs no hash.
  const { userId } = await standingReset(deps, token);
  const passwordHash = await hashPassword(password, deps.config.PASSWORD_HASH_ITERATIONS);
  const now = deps.clock.now();
  const done = await deps.prisma.$transaction(async (tx) => {
    // The account first, as every change of it does (no lock taken in another order).
    await lockAccount(tx, userId);
    // The burn is one conditional update: of two concurrent uses, one wins.
    const [burnt] = await tx.passwordReset.updateManyAndReturn({
      where: { tokenHash: hashLinkToken(token), usedAt: null, revokedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
      select: { id: true, userId: true, issuedBy: true, issuedAgainst: true },
    });
    if (!burnt) {
      await openReset(deps, token); // throws what the token's state is
      throw new PasswordResetNotFound();
    }
    if (!(await resetStands(tx, burnt))) {
      // Kept revoked rather than rolled back: the link stays refused.
      await tx.passwordReset.update({ where: { id: burnt.id }, data: { usedAt: null, revokedAt: now } });
      return undefined;
    }
    const user = await tx.user.update({
      where: { id: burnt.userId },
      data: { passwordHash, passwordChangedAt: now, passwordResetRequired: false },
      select: { id: true, email: true },
    });
    await tx.passwordReset.deleteMany({ where: { userId: user.id, usedAt: null } });
    await tx.session.deleteMany({ where: { userId: user.id } });
    const memberships = await tx.membership.findMany({ where: { userId: user.id }, select: { workspaceId: true } });
    await recordAuditIn(
      tx,
      deps.clock,
      {
        workspaceIds: memberships.map((m) => m.workspaceId),
        who: { kind: "person", id: user.id, label: user.email },
        source,
      },
      { action: "password_reset.used", object: { kind: "user", id: user.id }, details: { reset_id: burnt.id } },
    );
    return { userId: user.id, email: user.email };
  });
  if (!done) throw new PasswordResetRevoked();
  return done;
}

export function createPasswordResetsService(deps: PasswordResetsDeps) {
  return {
    issue: (userId: string, issuedBy: string | null, audit?: AuditContext) =>
      issuePasswordReset(deps, userId, issuedBy, audit),
    preview: (token: string) => previewPasswordReset(deps, token),
    complete: (token: string, password: string, source?: AuditSource) =>
      completePasswordReset(deps, token, password, source),
  };
}

export type PasswordResetsService = ReturnType<typeof createPasswordResetsService>;
