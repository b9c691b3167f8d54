// An invite's link: issued to the inviter (who passes it on), then previewed, declined or
// accepted by whoever holds it. Only the SHA-256 of the link's token is kept.
import { hashLinkToken, LINK_TOKEN, newLinkToken } from "../../lib/crypto/link-tokens.js";
import type { Actor } from "./actor.js";
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

/** A new link for the e-mail in the actor's workspace; it replaces the e-mail's pending invite. */
export async function issueInvite(
  { prisma, clock }: LinkDeps,
  actor: Actor,
  email: string,
  role: Role,
): Promise<InviteCreated> {
  const workspaceId = actor.workspace.workspaceId;
  const token = newLinkToken();
  const now = clock.now();
  const [, invite] = await prisma.$transaction([
    prisma.invite.deleteMany({ where: { workspaceId, email, acceptedAt: null } }),
    prisma.invite.create({
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
    }),
  ]);
  return { invite: inviteView(clock, invite), accept_url: invitePath(token), delivery: "link" };
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
