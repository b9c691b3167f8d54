// An invite's link: issued to the inviter (who passes it on), then previewed, declined or
// accepted by whoever holds it. Only the SHA-256 of the link's token is kept.
import { hashLinkToken, LINK_TOKEN, newLinkToken } from "../../lib/crypto/link-tokens.js";
import type { Prisma, PrismaClient } from "../../lib/db.js";
import { recordAudit, type AuditSource } from "../audit/audit-log.js";
import { inviteMail } from "./link-mails.js";
import type { MemberActor } from "./actor.js";
import { InviteExpired, InviteNotFound, InviteUsed } from "./member-errors.js";
import type { Role } from "./permissions.js";
import {
  INVITE_LIFETIME_MS,
  invitePath,
  inviteSelect,
  inviteView,
  newInviteId,
  type InviteCreated,
  type InviteDeps,
  type InvitePreview,
} from "./invite-views.js";

type LinkDeps = Pick<InviteDeps, "prisma" | "clock">;

/** The invite of a token, whatever its state; a malformed token is an unknown one. */
async function findInviteByToken({ prisma }: LinkDeps, token: string) {
  if (!LINK_TOKEN.test(token)) throw new InviteNotFound();
  const invite = await prisma.invite.findUnique({
    where: { tokenHash: hashLinkToken(token) },
    select: {
      ...inviteSelect,
      workspaceId: true,
      acceptedAt: true,
      workspace: { select: { name: true } },
    },
  });
  if (!invite) throw new InviteNotFound();
  return invite;
}

/** The invite a token may still accept: unknown 404, used 409, expired 410. */
export async function openInvite(deps: LinkDeps, token: string) {
  const invite = await findInviteByToken(deps, token);
  if (invite.acceptedAt) throw new InviteUsed();
  if (invite.expiresAt.getTime() <= deps.clock.now().getTime()) throw new InviteExpired();
  return invite;
}

/**
 * A new link for the e-mail in the actor's workspace. By mail, the link goes to the e-mail only,
 * and replaces the e-mail's pending invite once the mail server took it; a link it did not take
 * is withdrawn (503 mail_unavailable), the pending invite left as it was. Handed over (no mail
 * server), it replaces the pending invite at once.
 */
export async function issueInvite(
  { prisma, clock, delivery }: Pick<InviteDeps, "prisma" | "clock" | "delivery">,
  actor: MemberActor,
  email: string,
  role: Role,
  audit: { source: AuditSource; offerTo?: string } = { source: {} },
): Promise<InviteCreated> {
  const workspaceId = actor.workspace.workspaceId;
  const token = newLinkToken();
  const now = clock.now();
  const invite = await prisma.invite.create({
    data: {
      id: newInviteId(),
      workspaceId,
      email,
      role,
      tokenHash: hashLinkToken(token),
      invitedBy: actor.user.id,
      createdAt: now,
      expiresAt: new Date(now.getTime() + INVITE_LIFETIME_MS),
    },
    select: inviteSelect,
  });
  if (delivery.mode === "mail") {
    const ownerOffer = role === "owner" && (await isMember(prisma, workspaceId, email));
    const mail = inviteMail({
      email,
      role,
      workspace: actor.workspace.name,
      inviter: actor.user.name,
      path: invitePath(token),
      expiresAt: invite.expiresAt,
      ownerOffer,
    });
    try {
      await delivery.send(mail);
    } catch (error) {
      await prisma.invite.deleteMany({ where: { id: invite.id, acceptedAt: null } });
      throw error;
    }
  }
  // The row is written once the link is out (mailed, or about to be handed over), with the
  // replacement of the e-mail's older invites: a link the mail server refused leaves none.
  await replacePendingInvites(prisma, { id: invite.id, workspaceId, email }, async (tx) =>
    recordAudit(
      tx,
      clock,
      { actor, source: audit.source },
      audit.offerTo
        ? {
            action: "member.ownership_offered",
            object: { kind: "member", id: audit.offerTo },
            details: { email, invite_id: invite.id },
          }
        : { action: "invite.created", object: { kind: "invite", id: invite.id }, details: { email, role } },
    ),
  );
  const view = inviteView(clock, invite);
  return delivery.mode === "mail"
    ? { invite: view, delivery: "mail" }
    : { invite: view, accept_url: invitePath(token), delivery: "link" };
}

const isMember = async (prisma: PrismaClient, workspaceId: string, email: string) =>
  (await prisma.membership.count({ where: { workspaceId, user: { email } } })) > 0;

/**
 * The e-mail's other pending invites to the workspace go, unless a newer one replaced this one
 * meanwhile: one replacement at a time per e-mail and workspace, so two never remove each other.
 */
async function replacePendingInvites(
  prisma: PrismaClient,
  invite: { id: string; workspaceId: string; email: string },
  record: (tx: Prisma.TransactionClient) => Promise<void>,
) {
  await prisma.$transaction(async (tx) => {
    await record(tx);
    const key = `invite:${invite.workspaceId}:${invite.email}`;
    await tx.$queryRaw`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtext(${key}))) lock`;
    if ((await tx.invite.count({ where: { id: invite.id } })) === 0) return;
    await tx.invite.deleteMany({
      where: { workspaceId: invite.workspaceId, email: invite.email, acceptedAt: null, id: { not: invite.id } },
    });
  });
}

/** What the invite page shows; the token is the only authority. */
export async function previewInvite(deps: LinkDeps, token: string): Promise<InvitePreview> {
  const invite = await openInvite(deps, token);
  return {
    email: invite.email,
    role: invite.role,
    workspace: invite.workspace,
    invited_by: invite.inviter && { name: invite.inviter.name },
    expires_at: invite.expiresAt.toISOString(),
  };
}

/** Declines an invite not yet accepted: its link stops working, and nobody joins. */
export async function declineInvite(deps: LinkDeps, token: string): Promise<void> {
  await openInvite(deps, token);
  await deps.prisma.invite.deleteMany({ where: { tokenHash: hashLinkToken(token), acceptedAt: null } });
}

/** The e-mail a token invites and whether an account has it (the API checks that account's password). */
export async function inviteAccountFor(
  deps: LinkDeps,
  token: string,
): Promise<{ email: string; userId: string | null }> {
  const invite = await openInvite(deps, token);
  const account = await deps.prisma.user.findUnique({ where: { email: invite.email }, select: { id: true } });
  return { email: invite.email, userId: account?.id ?? null };
}
