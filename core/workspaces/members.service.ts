import type { Config } from "../../lib/config.js";
import type { PrismaClient } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import { afterTimeAndId, type TimeIdKey } from "../../lib/keyset.js";
import { hashPassword } from "../users/password.js";
import type { UserView } from "../users/users.service.js";
import type { Actor } from "./actor.js";
import type { InviteCreated, InvitesService } from "./invites.service.js";
import { AlreadyMember, LastOwner, MemberChangeForbidden, MemberNotFound } from "./member-errors.js";
import { can, type Role } from "./permissions.js";

/**
 * A member to add: an account by e-mail. When none has it, the e-mail is invited (a one-time link),
 * or, given name and password, an account is created with them.
 */
export interface AddMemberInput {
  email: string;
  role: Role;
  name?: string;
  password?: string;
}

export interface MemberView {
  user: UserView;
  role: Role;
  joined_at: string;
}

type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

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
  config,
  invites,
}: {
  prisma: PrismaClient;
  config: Pick<Config, "PASSWORD_HASH_ITERATIONS">;
  invites: InvitesService;
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

    /** Adds an account by e-mail; an e-mail no account has is invited instead (or created, given name and password). */
    async add(actor: Actor, input: AddMemberInput): Promise<MemberView | InviteCreated> {
      requireOwnerFor(actor, input.role);
      const workspaceId = actor.workspace.workspaceId;
      let user = await prisma.user.findUnique({ where: { email: input.email }, select: { id: true } });
      if (!user) {
        if (!input.name || !input.password) {
          return invites.create(actor, { email: input.email, role: input.role });
        }
        const passwordHash = await hashPassword(input.password, config.PASSWORD_HASH_ITERATIONS);
        user = await prisma.user.create({
          data: { id: newId("usr"), email: input.email, name: input.name, passwordHash },
          select: { id: true },
        });
      }
      const existing = await prisma.membership.findUnique({
        where: { userId_workspaceId: { userId: user.id, workspaceId } },
        select: { role: true },
      });
      if (existing) throw new AlreadyMember();
      const member = await prisma.membership.create({
        data: { userId: user.id, workspaceId, role: input.role },
        select: memberSelect,
      });
      return toView(member);
    },

    async updateRole(actor: Actor, userId: string, role: Role): Promise<MemberView> {
      const workspaceId = actor.workspace.workspaceId;
      return prisma.$transaction(async (tx) => {
        const owners = await lockOwners(tx, workspaceId);
        const member = await findMember(tx, workspaceId, userId);
        requireOwnerFor(actor, member.role, role);
        if (member.role === "owner" && role !== "owner" && owners <= 1) throw new LastOwner();
        const updated = await tx.membership.update({
          where: { userId_workspaceId: { userId, workspaceId } },
          data: { role },
          select: memberSelect,
        });
        return toView(updated);
      });
    },

    /** Removes a member (or lets a member leave); their sessions in this workspace end with it. */
    async remove(actor: Actor, userId: string): Promise<void> {
      const workspaceId = actor.workspace.workspaceId;
      const leaving = userId === actor.user.id;
      if (!leaving && !can(actor.workspace.role, "members:manage")) {
        throw new MemberChangeForbidden(`Your role (${actor.workspace.role}) does not allow managing members`);
      }
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
