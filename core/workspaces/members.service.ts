import type { Prisma, PrismaClient } from "../../lib/db.js";
import { afterTimeAndId, type TimeIdKey } from "../../lib/keyset.js";
import type { PasswordResetIssued, PasswordResetsService } from "../users/password-resets.service.js";
import type { UserView } from "../users/users.service.js";
import type { Actor } from "./actor.js";
import type { InviteCreated, InvitesService } from "./invites.service.js";
import { LastOwner, MemberChangeForbidden, MemberNotFound, ResetNeedsOperator } from "./member-errors.js";
import { can, type Role } from "./permissions.js";

/** A member to add, by e-mail: they are invited, and join when they accept. */
export interface AddMemberInput {
  email: string;
  role: Role;
}

export interface MemberView {
  user: UserView;
  role: Role;
  joined_at: string;
}

/** The owner role offered to a member: they keep their role until they accept the offer's link. */
export interface OwnerOffer {
  member: MemberView;
  offer: InviteCreated;
}

type Tx = Prisma.TransactionClient;

const memberSelect = {
  role: true,
  createdAt: true,
  user: { select: { id: true, email: true, name: true } },
} as const;

const toView = (m: { role: Role; createdAt: Date; user: UserView }): MemberView => ({
  user: m.user,
  role: m.role,
  joined_at: m.createdAt.toISOString(),
});

export function createMembersService({
  prisma,
  invites,
  passwordResets,
}: {
  prisma: PrismaClient;
  invites: InvitesService;
  passwordResets: PasswordResetsService;
}) {
  /** Owners are counted under a row lock so that two concurrent demotions cannot leave none. */
  async function lockOwners(tx: Tx, workspaceId: string): Promise<number> {
    const owners = await tx.$queryRaw<unknown[]>`
      SELECT user_id FROM memberships WHERE workspace_id = ${workspaceId} AND role = 'owner' FOR UPDATE`;
    return owners.length;
  }

  async function findMember(tx: Tx, workspaceId: string, userId: string) {
    const member = await tx.membership.findUnique({
      where: { userId_workspaceId: { userId, workspaceId } },
      select: memberSelect,
    });
    // Users of other workspaces are indistinguishable from users that do not exist.
    if (!member) throw new MemberNotFound();
    return member;
  }

  function requireOwnerFor(actor: Actor, ...roles: Role[]) {
    if (roles.includes("owner") && !can(actor.workspace.role, "owners:manage")) {
      throw new MemberChangeForbidden("Only an owner can grant, change or remove the owner role");
    }
  }

  function requireMembersManage(actor: Actor) {
    if (!can(actor.workspace.role, "members:manage")) {
      throw new MemberChangeForbidden(`Your role (${actor.workspace.role}) does not allow managing members`);
    }
  }

  /** Whether the actor may act for the user in every workspace the user belongs to (members, and owners too). */
  async function managesEveryWorkspaceOf(actor: Actor, userId: string): Promise<boolean> {
    const theirs = await prisma.membership.findMany({ where: { userId }, select: { workspaceId: true, role: true } });
    const mine = await prisma.membership.findMany({
      where: { userId: actor.user.id, workspaceId: { in: theirs.map((m) => m.workspaceId) } },
      select: { workspaceId: true, role: true },
    });
    const myRole = new Map(mine.map((m) => [m.workspaceId, m.role]));
    return theirs.every((m) => {
      const role = myRole.get(m.workspaceId);
      return role !== undefined && can(role, "members:manage") && (m.role !== "owner" || can(role, "owners:manage"));
    });
  }

  return {
    /** Members in the order they joined; `after` continues after a member a page showed (joined, user id). */
    async list(workspaceId: string, query: { limit: number; after?: TimeIdKey }): Promise<MemberView[]> {
      const members = await prisma.membership.findMany({
        where: { workspaceId, ...afterTimeAndId(query.after, { time: "createdAt", id: "userId" }, "asc") },
        select: memberSelect,
        orderBy: [{ createdAt: "asc" }, { userId: "asc" }],
        take: query.limit,
      });
      return members.map(toView);
    },

    /**
     * Adds a member by consent: the e-mail is invited (a one-time link), whether an account has it
     * or not, and nobody joins before accepting. Nobody chooses another person's password.
     */
    async add(actor: Actor, input: AddMemberInput): Promise<InviteCreated> {
      return invites.create(actor, { email: input.email, role: input.role });
    },

    /**
     * Changes a member's role. The owner role is not given but offered: the member stays as they
     * are until they accept the offer's link.
     */
    async updateRole(actor: Actor, userId: string, role: Role): Promise<MemberView | OwnerOffer> {
      const workspaceId = actor.workspace.workspaceId;
      const result = await prisma.$transaction(async (tx) => {
        const owners = await lockOwners(tx, workspaceId);
        const member = await findMember(tx, workspaceId, userId);
        requireOwnerFor(actor, member.role, role);
        if (role === "owner" && member.role !== "owner") return { offerTo: toView(member) };
        if (member.role === "owner" && role !== "owner" && owners <= 1) throw new LastOwner();
        const updated = await tx.membership.update({
          where: { userId_workspaceId: { userId, workspaceId } },
          data: { role },
          select: memberSelect,
        });
        return { updated: toView(updated) };
      });
      if (result.updated) return result.updated;
      const member = result.offerTo;
      return { member, offer: await invites.offerOwnership(actor, member.user.email) };
    },

    /**
     * A one-time link that sets the member's password, for the issuer to pass on. Only for a member
     * whose every workspace the issuer manages (owners: by an owner): a reset must not open an
     * account to someone who could not act for it everywhere it belongs; the operator's CLI can.
     */
    async issuePasswordReset(actor: Actor, userId: string): Promise<PasswordResetIssued> {
      requireMembersManage(actor);
      const member = await findMember(prisma, actor.workspace.workspaceId, userId);
      requireOwnerFor(actor, member.role);
      if (!(await managesEveryWorkspaceOf(actor, userId))) throw new ResetNeedsOperator();
      return passwordResets.issue(userId, actor.user.id);
    },

    /** Removes a member (or lets a member leave); their sessions in this workspace end with it. */
    async remove(actor: Actor, userId: string): Promise<void> {
      const workspaceId = actor.workspace.workspaceId;
      const leaving = userId === actor.user.id;
      if (!leaving) requireMembersManage(actor);
      await prisma.$transaction(async (tx) => {
        const owners = await lockOwners(tx, workspaceId);
        const member = await findMember(tx, workspaceId, userId);
        if (!leaving) requireOwnerFor(actor, member.role);
        if (member.role === "owner" && owners <= 1) throw new LastOwner();
        await tx.membership.delete({ where: { userId_workspaceId: { userId, workspaceId } } });
      });
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
