// Invites: a pending member by e-mail, who joins through a one-time link, and a member offered the
// owner role, who takes it the same way. There is no mail server: the link goes back to the
// inviter, who passes it on. Only the SHA-256 of the link's token is kept. The workspace's side
// is here; the link's side in invite-links.ts, accepting in invite-accept.ts.
import { recordAudit, type AuditSource } from "../audit/audit-log.js";
import type { MemberActor } from "./actor.js";
import { acceptInvite, type AcceptingAccount } from "./invite-accept.js";
import { declineInvite, inviteAccountFor, issueInvite, previewInvite } from "./invite-links.js";
import { inviteSelect, inviteView, type InviteCreated, type InviteDeps, type InviteView } from "./invite-views.js";
import { AlreadyMember, InviteNotFound, MemberChangeForbidden } from "./member-errors.js";
import { can, type Role } from "./permissions.js";

export type { InviteCreated } from "./invite-views.js";

/**
 * Invites an e-mail to the actor's workspace with a role (the owner role only by an owner).
 * The same for an e-mail with an account and one without: nobody joins without accepting, and
 * the answer does not tell whether an account has the e-mail. Inviting the same e-mail again
 * replaces its pending invite: only the newest link works.
 */
export async function createInvite(
  deps: InviteDeps,
  actor: MemberActor,
  input: { email: string; role: Role },
  source: AuditSource = {},
): Promise<InviteCreated> {
  if (!can(actor.workspace.role, "members:manage")) {
    throw new MemberChangeForbidden(`Your role (${actor.workspace.role}) does not allow managing members`);
  }
  if (input.role === "owner" && !can(actor.workspace.role, "owners:manage")) {
    throw new MemberChangeForbidden("Only an owner can grant, change or remove the owner role");
  }
  // Members of the actor's own workspace are no secret to them: the members list shows them.
  const member = await deps.prisma.membership.findFirst({
    where: { workspaceId: actor.workspace.workspaceId, user: { email: input.email } },
    select: { userId: true },
  });
  if (member) throw new AlreadyMember();
  return issueInvite(deps, actor, input.email, input.role, { source });
}

/** The workspace's invites not yet accepted, newest first (expired ones too, until revoked). */
export async function listInvites({ prisma, clock }: InviteDeps, workspaceId: string): Promise<InviteView[]> {
  const invites = await prisma.invite.findMany({
    where: { workspaceId, acceptedAt: null },
    select: inviteSelect,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 200,
  });
  return invites.map((invite) => inviteView(clock, invite));
}

/** Withdraws an invite not yet accepted: its link stops working. */
export async function revokeInvite(
  { prisma, clock }: InviteDeps,
  actor: MemberActor,
  inviteId: string,
  source: AuditSource = {},
): Promise<void> {
  const workspaceId = actor.workspace.workspaceId;
  const invite = await prisma.invite.findFirst({
    where: { id: inviteId, workspaceId, acceptedAt: null },
    select: { role: true, email: true },
  });
  if (!invite) throw new InviteNotFound();
  if (invite.role === "owner" && !can(actor.workspace.role, "owners:manage")) {
    throw new MemberChangeForbidden("Only an owner can revoke an invite to the owner role");
  }
  await prisma.$transaction(async (tx) => {
    const { count } = await tx.invite.deleteMany({ where: { id: inviteId, workspaceId, acceptedAt: null } });
    if (count > 0)
      await recordAudit(
        tx,
        clock,
        { actor, source },
        {
          action: "invite.revoked",
          object: { kind: "invite", id: inviteId },
          details: { email: invite.email, role: invite.role },
        },
      );
  });
}

export function createInvitesService(deps: InviteDeps) {
  return {
    create: (actor: MemberActor, input: { email: string; role: Role }, source?: AuditSource) =>
      createInvite(deps, actor, input, source),
    /**
     * Offers the owner role to a member of the actor's workspace (the caller checked both): an
     * invite with the owner role, which the member accepts or lets lapse.
     */
    offerOwnership: (actor: MemberActor, userId: string, email: string, source: AuditSource = {}) =>
      issueInvite(deps, actor, email, "owner", { source, offerTo: userId }),
    list: (workspaceId: string) => listInvites(deps, workspaceId),
    revoke: (actor: MemberActor, inviteId: string, source?: AuditSource) => revokeInvite(deps, actor, inviteId, source),
    preview: (token: string) => previewInvite(deps, token),
    decline: (token: string) => declineInvite(deps, token),
    accountFor: (token: string) => inviteAccountFor(deps, token),
    accept: (token: string, account: AcceptingAccount, source?: AuditSource) =>
      acceptInvite(deps, token, account, source),
  };
}

export type InvitesService = ReturnType<typeof createInvitesService>;
