// Accepting an invite: the token burnt and the membership added (or a member raised to owner, for
// an owner offer) in one transaction, for the e-mail's account or a new one made on the way.
import { hashLinkToken } from "../../lib/crypto/link-tokens.js";
import type { Prisma } from "../../lib/db.js";
import { recordAuditIn, type AuditSource } from "../audit/audit-log.js";
import { newId } from "../../lib/ids.js";
import { InvalidInput } from "../errors.js";
import { hashPassword } from "../users/password.js";
import { passwordSchema } from "../users/users.schema.js";
import { openInvite } from "./invite-links.js";
import type { InviteDeps } from "./invite-views.js";
import { AlreadyMember, InviteNotFound, InviteWithdrawn } from "./member-errors.js";
import type { Role } from "./permissions.js";
import { lockAccount, revokePendingResets } from "./reset-binding.js";

/** The e-mail's existing account, its password or session already checked, or the name and password of a new one. */
export type AcceptingAccount = { userId: string } | { name: string | undefined; password: string };

interface NewAccount {
  name: string;
  passwordHash: string;
}

/**
 * Accepts an invite: burns the token and adds the membership with the invited role (or raises
 * a member to owner, for an owner offer), in one transaction.
 */
export async function acceptInvite(
  deps: InviteDeps,
  token: string,
  account: AcceptingAccount,
  source: AuditSource = {},
): Promise<{ userId: string; workspaceId: string }> {
  const newAccount = "userId" in account ? undefined : await checkedNewAccount(deps, token, account);
  const now = deps.clock.now();
  return deps.prisma.$transaction(async (tx) => {
    // The burn is one conditional update: of two concurrent accepts, one wins.
    const burnt = await tx.invite.updateManyAndReturn({
      where: { tokenHash: hashLinkToken(token), acceptedAt: null, expiresAt: { gt: now } },
      data: { acceptedAt: now },
      select: { id: true, workspaceId: true, email: true, role: true, invitedBy: true },
    });
    const invite = burnt[0];
    if (!invite) {
      await openInvite(deps, token); // throws what the token's state is
      throw new InviteNotFound();
    }
    const userId = await joiningUser(tx, invite.email, "userId" in account ? account : newAccount!);
    if (invite.role === "owner") await requireOwnerInviter(tx, invite);
    const joined = await joinWithRole(tx, { userId, workspaceId: invite.workspaceId, role: invite.role });
    // The person who accepted acts: a new member, or a member taking the owner role offered.
    await recordAuditIn(
      tx,
      deps.clock,
      { workspaceIds: [invite.workspaceId], who: { kind: "person", id: userId, label: invite.email }, source },
      {
        action: joined === "added" ? "member.added" : "member.ownership_accepted",
        object: { kind: "member", id: userId },
        details: { email: invite.email, role: invite.role, invite_id: invite.id, invited_by: invite.invitedBy },
      },
    );
    // The account's pending reset links were issued against the workspaces it had: they stop here.
    await revokePendingResets(tx, userId, now);
    return { userId, workspaceId: invite.workspaceId };
  });
}

/** A new account's name and hashed password, checked first (400 naming the field). */
async function checkedNewAccount(
  deps: InviteDeps,
  token: string,
  account: { name: string | undefined; password: string },
): Promise<NewAccount> {
  const problems: Array<{ path: string; message: string }> = [];
  const name = account.name?.trim();
  if (!name) problems.push({ path: "name", message: "a new account needs a name" });
  const password = passwordSchema.safeParse(account.password);
  if (!password.success) problems.push({ path: "password", message: password.error.issues[0]!.message });
  if (problems.length > 0) throw new InvalidInput("The new account's name or password is not valid", problems);
  // Checked before hashing, so that a used or expired link costs no hash.
  await openInvite(deps, token);
  return { name: name!, passwordHash: await hashPassword(account.password, deps.config.PASSWORD_HASH_ITERATIONS) };
}

/** The account that joins: the existing one, which must have the invited e-mail, or a new one made now. */
async function joiningUser(
  tx: Prisma.TransactionClient,
  email: string,
  account: { userId: string } | NewAccount,
): Promise<string> {
  if ("userId" in account) {
    // Held until the join commits: a reset link's last check sees the account before or after it.
    await lockAccount(tx, account.userId);
    const user = await tx.user.findUnique({ where: { id: account.userId }, select: { email: true } });
    if (user?.email !== email) throw new InviteNotFound();
    return account.userId;
  }
  // The unique e-mail index refuses an account made meanwhile (P2002: 409).
  const user = await tx.user.create({ data: { id: newId("usr"), email, ...account }, select: { id: true } });
  return user.id;
}

/** An owner invite stands only while the owner who made it still is one. */
async function requireOwnerInviter(
  tx: Prisma.TransactionClient,
  invite: { workspaceId: string; invitedBy: string | null },
) {
  const inviter = invite.invitedBy
    ? await tx.membership.findUnique({
        where: { userId_workspaceId: { userId: invite.invitedBy, workspaceId: invite.workspaceId } },
        select: { role: true },
      })
    : null;
  if (inviter?.role !== "owner") throw new InviteWithdrawn();
}

/** Adds the membership, or raises a member to owner (an owner offer); anything else is a member already. */
async function joinWithRole(
  tx: Prisma.TransactionClient,
  join: { userId: string; workspaceId: string; role: Role },
): Promise<"added" | "raised"> {
  const key = { userId_workspaceId: { userId: join.userId, workspaceId: join.workspaceId } };
  const existing = await tx.membership.findUnique({ where: key, select: { role: true } });
  if (!existing) {
    await tx.membership.create({ data: join });
    return "added";
  }
  if (join.role !== "owner" || existing.role === "owner") throw new AlreadyMember();
  await tx.membership.update({ where: key, data: { role: "owner" } });
  return "raised";
}
