// Who may change which member, and the reads the changes are checked against.
import type { Prisma, PrismaClient } from "../../lib/db.js";
import type { UserView } from "../users/users.service.js";
import type { MemberActor } from "./actor.js";
import { MemberChangeForbidden, MemberNotFound } from "./member-errors.js";
import { can, type Role } from "./permissions.js";

export interface MemberView {
  user: UserView;
  role: Role;
  joined_at: string;
}

type Tx = Prisma.TransactionClient;

export const memberSelect = {
  role: true,
  createdAt: true,
  user: { select: { id: true, email: true, name: true } },
} as const;

export const memberView = (m: { role: Role; createdAt: Date; user: UserView }): MemberView => ({
  user: m.user,
  role: m.role,
  joined_at: m.createdAt.toISOString(),
});

/** Owners are counted under a row lock so that two concurrent demotions cannot leave none. */
export async function lockOwners(tx: Tx, workspaceId: string): Promise<number> {
  const owners = await tx.$queryRaw<unknown[]>`
    SELECT user_id FROM memberships WHERE workspace_id = ${workspaceId} AND role = 'owner' FOR UPDATE`;
  return owners.length;
}

export async function findMember(tx: Tx, workspaceId: string, userId: string) {
  const member = await tx.membership.findUnique({
    where: { userId_workspaceId: { userId, workspaceId } },
    select: memberSelect,
  });
  // Users of other workspaces are indistinguishable from users that do not exist.
  if (!member) throw new MemberNotFound();
  return member;
}

export function requireOwnerFor(actor: MemberActor, ...roles: Role[]) {
  if (roles.includes("owner") && !can(actor.workspace.role, "owners:manage")) {
    throw new MemberChangeForbidden("Only an owner can grant, change or remove the owner role");
  }
}

export function requireMembersManage(actor: MemberActor) {
  if (!can(actor.workspace.role, "members:manage")) {
    throw new MemberChangeForbidden(`Your role (${actor.workspace.role}) does not allow managing members`);
  }
}

/**
 * Whether `managerId` may act for the user in every workspace the user belongs to: admin or owner
 * of each (of a workspace the user owns, owner). Vacuously true for a user of no workspace: the
 * callers know which workspaces to expect.
 */
export async function managesEveryWorkspace(
  db: PrismaClient | Tx,
  managerId: string,
  userId: string,
): Promise<boolean> {
  const theirs = await db.membership.findMany({ where: { userId }, select: { workspaceId: true, role: true } });
  const mine = await db.membership.findMany({
    where: { userId: managerId, workspaceId: { in: theirs.map((m) => m.workspaceId) } },
    select: { workspaceId: true, role: true },
  });
  const myRole = new Map(mine.map((m) => [m.workspaceId, m.role]));
  return theirs.every((m) => {
    const role = myRole.get(m.workspaceId);
    return role !== undefined && can(role, "members:manage") && (m.role !== "owner" || can(role, "owners:manage"));
  });
}
