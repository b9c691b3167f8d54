// What a password reset link is bound to: the account as it was when the link was issued (its
// e-mail, its password, its memberships) and, for a member's link, that member's authority over
// every workspace of the account. A link is checked against them again when used, so that a link
// does not outlive what made its issue right (issue 47: a link an admin of A issued for a member
// of A only, used after the member had joined B as admin, opened B to A's admin).
import type { Prisma, PrismaClient } from "../../lib/db.js";
import { managesEveryWorkspace } from "./member-rules.js";
import type { Role } from "./permissions.js";

type Tx = Prisma.TransactionClient;
type Db = PrismaClient | Tx;

/** The account as a link was issued against it (the `issued_against` column). */
export interface AccountState {
  email: string;
  password_changed_at: string;
  /** By workspace id. */
  memberships: Array<{ workspace_id: string; role: Role }>;
}

/** The account's state now; null when there is no such account. */
export async function accountState(db: Db, userId: string): Promise<AccountState | null> {
  const user = await db.user.findUnique({
    where: { id: userId },
    select: {
      email: true,
      passwordChangedAt: true,
      memberships: { select: { workspaceId: true, role: true }, orderBy: { workspaceId: "asc" } },
    },
  });
  return (
    user && {
      email: user.email,
      password_changed_at: user.passwordChangedAt.toISOString(),
      memberships: user.memberships.map((m) => ({ workspace_id: m.workspaceId, role: m.role })),
    }
  );
}

/**
 * Holds the account's row until the transaction ends: using a link, issuing one, joining a
 * workspace and changing the password take turns, so a link's last check sees the account as the
 * link's use leaves it.
 */
export async function lockAccount(tx: Tx, userId: string): Promise<void> {
  await tx.$queryRaw`SELECT 1 FROM users WHERE id = ${userId} FOR UPDATE`;
}

/** Revokes the account's unused links: it joined a workspace, or its password or e-mail changed. */
export async function revokePendingResets(db: Db, userId: string, now: Date): Promise<void> {
  await db.passwordReset.updateMany({ where: { userId, usedAt: null, revokedAt: null }, data: { revokedAt: now } });
}

const sameMemberships = (a: AccountState["memberships"], b: AccountState["memberships"]) =>
  a.length === b.length && a.every((m, i) => m.workspace_id === b[i]!.workspace_id && m.role === b[i]!.role);

/**
 * Whether a link still stands. Any link: the account's e-mail and password are those it was issued
 * against. A member's link besides: the account belongs to exactly the workspaces, in the roles, it
 * was issued against, and its issuer still manages every one of them (the rule of its issue). The
 * operator's link stands whatever the account's workspaces.
 */
export async function resetStands(
  db: Db,
  reset: { userId: string; issuedBy: string | null; issuedAgainst: Prisma.JsonValue },
): Promise<boolean> {
  const issuedAgainst = reset.issuedAgainst as unknown as AccountState;
  const now = await accountState(db, reset.userId);
  if (!now || now.email !== issuedAgainst.email || now.password_changed_at !== issuedAgainst.password_changed_at) {
    return false;
  }
  if (reset.issuedBy === null) return true;
  if (now.memberships.length === 0 || !sameMemberships(now.memberships, issuedAgainst.memberships)) return false;
  return managesEveryWorkspace(db, reset.issuedBy, reset.userId);
}
