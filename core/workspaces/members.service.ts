// A workspace's members: listed, added by invite, their role changed (the owner role offered),
// a password reset link issued for one, removed. The checks live in member-rules.ts.
import type { Clock } from "../../lib/clock.js";
import type { PrismaClient } from "../../lib/db.js";
import { afterTimeAndId, type TimeIdKey } from "../../lib/keyset.js";
import { recordAudit, type AuditSource } from "../audit/audit-log.js";
import type { PasswordResetIssued, PasswordResetsService } from "./password-resets.service.js";
import type { MemberActor } from "./actor.js";
import type { InviteCreated, InvitesService } from "./invites.service.js";
import { LastOwner } from "./member-errors.js";
import {
  findMember,
  lockOwners,
  memberSelect,
  memberView,
  requireMembersManage,
  requireOwnerFor,
  type MemberView,
} from "./member-rules.js";
import type { Role } from "./permissions.js";

/** A member to add, by e-mail: they are invited, and join when they accept. */
export interface AddMemberInput {
  email: string;
  role: Role;
}

/** The owner role offered to a member: they keep their role until they accept the offer's link. */
export interface OwnerOffer {
  member: MemberView;
  offer: InviteCreated;
}

interface MembersDeps {
  prisma: PrismaClient;
  clock: Clock;
  invites: InvitesService;
  passwordResets: PasswordResetsService;
}

/** Members in the order they joined; `after` continues after a member a page showed (joined, user id). */
export async function listMembers(
  { prisma }: Pick<MembersDeps, "prisma">,
  workspaceId: string,
  query: { limit: number; after?: TimeIdKey },
): Promise<MemberView[]> {
  const members = await prisma.membership.findMany({
    where: { workspaceId, ...afterTimeAndId(query.after, { time: "createdAt", id: "userId" }, "asc") },
    select: memberSelect,
    orderBy: [{ createdAt: "asc" }, { userId: "asc" }],
    take: query.limit,
  });
  return members.map(memberView);
}

/**
 * Changes a member's role. The owner role is not given but offered: the member stays as they
 * are until they accept the offer's link.
 */
export async function updateMemberRole(
  { prisma, clock, invites }: Pick<MembersDeps, "prisma" | "clock" | "invites">,
  actor: MemberActor,
  userId: string,
  role: Role,
  source: AuditSource = {},
): Promise<MemberView | OwnerOffer> {
  const workspaceId = actor.workspace.workspaceId;
  const result = await prisma.$transaction(async (tx) => {
    const owners = await lockOwners(tx, workspaceId);
    const member = await findMember(tx, workspaceId, userId);
    requireOwnerFor(actor, member.role, role);
    if (role === "owner" && member.role !== "owner") return { offerTo: memberView(member) };
    if (member.role === "owner" && role !== "owner" && owners <= 1) throw new LastOwner();
    const updated = await tx.membership.update({
      where: { userId_workspaceId: { userId, workspaceId } },
      data: { role },
      select: memberSelect,
    });
    if (member.role !== role)
      await recordAudit(
        tx,
        clock,
        { actor, source },
        {
          action: "member.role_changed",
          object: { kind: "member", id: userId },
          details: { email: member.user.email, from: member.role, to: role },
        },
      );
    return { updated: memberView(updated) };
  });
  if (result.updated) return result.updated;
  const member = result.offerTo;
  return { member, offer: await invites.offerOwnership(actor, member.user.id, member.user.email, source) };
}

/**
 * A one-time link that sets the member's password, for the issuer to pass on. Only for a member
 * whose every workspace the issuer manages (owners: by an owner), checked by the resets service
 * when it issues the link and again when the link is used: a reset must not open an account to
 * someone who could not act for it everywhere it belongs; the operator's CLI can.
 */
export async function issueMemberPasswordReset(
  { prisma, passwordResets }: Pick<MembersDeps, "prisma" | "passwordResets">,
  actor: MemberActor,
  userId: string,
  source: AuditSource = {},
): Promise<PasswordResetIssued> {
  requireMembersManage(actor);
  const member = await findMember(prisma, actor.workspace.workspaceId, userId);
  requireOwnerFor(actor, member.role);
  return passwordResets.issue(userId, actor.user.id, { actor, source });
}

/** Removes a member (or lets a member leave); their sessions in this workspace end with it. */
export async function removeMember(
  { prisma, clock }: Pick<MembersDeps, "prisma" | "clock">,
  actor: MemberActor,
  userId: string,
  source: AuditSource = {},
) {
  const workspaceId = actor.workspace.workspaceId;
  const leaving = userId === actor.user.id;
  if (!leaving) requireMembersManage(actor);
  await prisma.$transaction(async (tx) => {
    const owners = await lockOwners(tx, workspaceId);
    const member = await findMember(tx, workspaceId, userId);
    if (!leaving) requireOwnerFor(actor, member.role);
    if (member.role === "owner" && owners <= 1) throw new LastOwner();
    await tx.membership.delete({ where: { userId_workspaceId: { userId, workspaceId } } });
    await recordAudit(
      tx,
      clock,
      { actor, source },
      {
        action: "member.removed",
        object: { kind: "member", id: userId },
        details: { email: member.user.email, role: member.role, left: leaving },
      },
    );
  });
}

export function createMembersService(deps: MembersDeps) {
  return {
    list: (workspaceId: string, query: { limit: number; after?: TimeIdKey }) => listMembers(deps, workspaceId, query),
    /**
     * Adds a member by consent: the e-mail is invited (a one-time link), whether an account has it
     * or not, and nobody joins before accepting. Nobody chooses another person's password.
     */
    add: (actor: MemberActor, input: AddMemberInput, source?: AuditSource): Promise<InviteCreated> =>
      deps.invites.create(actor, { email: input.email, role: input.role }, source),
    updateRole: (actor: MemberActor, userId: string, role: Role, source?: AuditSource) =>
      updateMemberRole(deps, actor, userId, role, source),
    issuePasswordReset: (actor: MemberActor, userId: string, source?: AuditSource) =>
      issueMemberPasswordReset(deps, actor, userId, source),
    remove: (actor: MemberActor, userId: string, source?: AuditSource): Promise<void> =>
      removeMember(deps, actor, userId, source),
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
