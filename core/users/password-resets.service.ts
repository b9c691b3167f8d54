// Password resets: a one-time link that sets an account's password. There is no mail server: the
// link goes to whoever issued it (an owner or admin, core/workspaces/members.service.ts, or the
// operator's CLI), who passes it on. Only the SHA-256 of the link's token is kept.
import { randomBytes } from "node:crypto";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import { hashLinkToken, LINK_TOKEN, newLinkToken } from "../../lib/crypto/link-tokens.js";
import type { PrismaClient } from "../../lib/db.js";
import { hashPassword } from "./password.js";
import { PasswordResetExpired, PasswordResetNotFound, PasswordResetUsed } from "./user-errors.js";

/** How long a reset link works: long enough to be passed on by hand, short for a link that opens an account. */
const PASSWORD_RESET_LIFETIME_MS = 24 * 3_600_000;

/** The dashboard's page that sets the new password (a path: the dashboard adds its own origin). */
const passwordResetPath = (token: string) => `/reset-password/${token}`;

/** A new reset link; shown this once. */
export interface PasswordResetIssued {
  email: string;
  reset_url: string;
  expires_at: string;
  /** How the link reaches its user: `link`, handed to the issuer (no mail server is configured). */
  delivery: "link";
}

/** What the reset page shows before the new password is set. */
export interface PasswordResetPreview {
  email: string;
  expires_at: string;
}

// Reset ids are the API's own (pwr_ and 96 random bits in hex, as newId makes the others).
const newResetId = () => `pwr_${randomBytes(12).toString("hex")}`;

interface PasswordResetsDeps {
  prisma: PrismaClient;
  clock: Clock;
  config: Pick<Config, "PASSWORD_HASH_ITERATIONS">;
}

/** The reset a token may still use: unknown 404, used 409, expired 410. */
async function openReset({ prisma, clock }: Pick<PasswordResetsDeps, "prisma" | "clock">, token: string) {
  if (!LINK_TOKEN.test(token)) throw new PasswordResetNotFound();
  const reset = await prisma.passwordReset.findUnique({
    where: { tokenHash: hashLinkToken(token) },
    select: { userId: true, usedAt: true, expiresAt: true, user: { select: { email: true } } },
  });
  if (!reset) throw new PasswordResetNotFound();
  if (reset.usedAt) throw new PasswordResetUsed();
  if (reset.expiresAt.getTime() <= clock.now().getTime()) throw new PasswordResetExpired();
  return reset;
}

/** A new reset link for the user; their unused links stop working. `issuedBy` is null for the operator. */
export async function issuePasswordReset(
  { prisma, clock }: Pick<PasswordResetsDeps, "prisma" | "clock">,
  userId: string,
  issuedBy: string | null,
): Promise<PasswordResetIssued> {
  const token = newLinkToken();
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + PASSWORD_RESET_LIFETIME_MS);
  const [, reset] = await prisma.$transaction([
    prisma.passwordReset.deleteMany({ where: { userId, usedAt: null } }),
    prisma.passwordReset.create({
      data: { id: newResetId(), userId, tokenHash: hashLinkToken(token), issuedBy, createdAt: now, expiresAt },
      select: { user: { select: { email: true } } },
    }),
  ]);
  return {
    email: reset.user.email,
    reset_url: passwordResetPath(token),
    expires_at: expiresAt.toISOString(),
    delivery: "link",
  };
}

/** What the reset page shows; the token is the only authority. */
export async function previewPasswordReset(
  deps: Pick<PasswordResetsDeps, "prisma" | "clock">,
  token: string,
): Promise<PasswordResetPreview> {
  const reset = await openReset(deps, token);
  return { email: reset.user.email, expires_at: reset.expiresAt.toISOString() };
}

/**
 * Sets the new password (the API parsed it with passwordSchema): burns the link, lifts a
 * required reset, drops the user's other links and ends every session of the user, in one
 * transaction.
 */
export async function completePasswordReset(
  deps: PasswordResetsDeps,
  token: string,
  password: string,
): Promise<{ userId: string; email: string }> {
  // Checked before hashing, so that a used or expired link costs no hash.
  await openReset(deps, token);
  const passwordHash = await hashPassword(password, deps.config.PASSWORD_HASH_ITERATIONS);
  const now = deps.clock.now();
  return deps.prisma.$transaction(async (tx) => {
    // The burn is one conditional update: of two concurrent uses, one wins.
    const [burnt] = await tx.passwordReset.updateManyAndReturn({
      where: { tokenHash: hashLinkToken(token), usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
      select: { userId: true },
    });
    if (!burnt) {
      await openReset(deps, token); // throws what the token's state is
      throw new PasswordResetNotFound();
    }
    const user = await tx.user.update({
      where: { id: burnt.userId },
      data: { passwordHash, passwordChangedAt: now, passwordResetRequired: false },
      select: { id: true, email: true },
    });
    await tx.passwordReset.deleteMany({ where: { userId: user.id, usedAt: null } });
    await tx.session.deleteMany({ where: { userId: user.id } });
    return { userId: user.id, email: user.email };
  });
}

export function createPasswordResetsService(deps: PasswordResetsDeps) {
  return {
    issue: (userId: string, issuedBy: string | null) => issuePasswordReset(deps, userId, issuedBy),
    preview: (token: string) => previewPasswordReset(deps, token),
    complete: (token: string, password: string) => completePasswordReset(deps, token, password),
  };
}

export type PasswordResetsService = ReturnType<typeof createPasswordResetsService>;
