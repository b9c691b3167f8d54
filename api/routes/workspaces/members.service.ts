import type { Config } from "../../../lib/config.js";
import type { PrismaClient } from "../../../lib/db.js";
import { newId } from "../../../lib/ids.js";
import { can, type Role } from "../../../core/workspaces/permissions.js";
import { hashPassword } from "../../auth/password.js";
import type { AuthContext } from "../../auth/sessions.service.js";
import type { UserView } from "../../../core/workspaces/actor.js";
import { afterTimeAndId } from "../../../lib/keyset.js";
import { decodeCursor, isTimeIdCursor, keysetPage } from "../../http/cursor.js";
import { HttpError, conflict, forbidden, notFound } from "../../http/errors.js";
import type { AddMemberInput } from "./workspaces.schema.js";

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

const isMemberCursor = isTimeIdCursor("t");

const lastOwner = () =>
  new HttpError(409, "last_owner", "A workspace needs at least one owner: make someone else owner first");

export function createMembersService({
  prisma,
  config,
}: {
  prisma: PrismaClient;
  config: Pick<Config, "PASSWORD_HASH_ITERATIONS">;
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
    if (!member) throw notFound("No such member in this workspace");
    return member;
  }

  function requireOwnerFor(actor: AuthContext, ...roles: Role[]) {
    if (roles.includes("owner") && !can(actor.workspace.role, "owners:manage")) {
      throw forbidden("Only an owner can grant, change or remove the owner role");
    }
  }

  return {
    /** A page of members in the order they joined. */
    async list(workspaceId: string, query: { limit: number; cursor?: string }) {
      const after = decodeCursor(query.cursor, isMemberCursor);
      const members = await prisma.membership.findMany({
        where: {
          workspaceId,
          ...afterTimeAndId(
            after && { time: new Date(after.t), id: after.id },
            { time: "createdAt", id: "userId" },
            "asc",
          ),
        },
        select: memberSelect,
        orderBy: [{ createdAt: "asc" }, { userId: "asc" }],
        take: query.limit + 1,
      });
      const { page, next_cursor } = keysetPage(members, query.limit, (last) => ({
        t: last.createdAt.toISOString(),
        id: last.user.id,
      }));
      return { items: page.map(toView), next_cursor };
    },

    async add(actor: AuthContext, input: AddMemberInput): Promise<MemberView> {
      requireOwnerFor(actor, input.role);
      const workspaceId = actor.workspace.workspaceId;
      let user = await prisma.user.findUnique({ where: { email: input.email }, select: { id: true } });
      if (!user) {
        if (!input.name || !input.password) {
          throw new HttpError(
            404,
            "user_not_found",
            "No account has this e-mail; give name and password to create one",
          );
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
      if (existing) throw conflict("This user is already a member of the workspace");
      const member = await prisma.membership.create({
        data: { userId: user.id, workspaceId, role: input.role },
        select: memberSelect,
      });
      return toView(member);
    },

    async updateRole(actor: AuthContext, userId: string, role: Role): Promise<MemberView> {
      const workspaceId = actor.workspace.workspaceId;
      return prisma.$transaction(async (tx) => {
        const owners = await lockOwners(tx, workspaceId);
        const member = await findMember(tx, workspaceId, userId);
        requireOwnerFor(actor, member.role, role);
        if (member.role === "owner" && role !== "owner" && owners <= 1) throw lastOwner();
        const updated = await tx.membership.update({
          where: { userId_workspaceId: { userId, workspaceId } },
          data: { role },
          select: memberSelect,
        });
        return toView(updated);
      });
    },

    /** Removes a member (or lets a member leave); their sessions in this workspace end with it. */
    async remove(actor: AuthContext, userId: string): Promise<void> {
      const workspaceId = actor.workspace.workspaceId;
      const leaving = userId === actor.user.id;
      if (!leaving && !can(actor.workspace.role, "members:manage")) {
        throw forbidden(`Your role (${actor.workspace.role}) does not allow managing members`);
      }
      await prisma.$transaction(async (tx) => {
        const owners = await lockOwners(tx, workspaceId);
        const member = await findMember(tx, workspaceId, userId);
        if (!leaving) requireOwnerFor(actor, member.role);
        if (member.role === "owner" && owners <= 1) throw lastOwner();
        await tx.membership.delete({ where: { userId_workspaceId: { userId, workspaceId } } });
      });
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
