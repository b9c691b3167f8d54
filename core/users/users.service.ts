// Accounts: a new user comes with a workspace of their own (the operator's CLI and the tests make
// them; the API adds members to workspaces, core/workspaces/members.service.ts).
import type { PrismaClient } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import { DomainError } from "../errors.js";
import { hashPassword } from "./password.js";
import type { NewUser } from "./users.schema.js";

export interface UserView {
  id: string;
  email: string;
  name: string;
}

export class UserExists extends DomainError {
  override name = "UserExists";
  constructor(email: string) {
    super("conflict", "conflict", `A user with e-mail ${email} already exists`);
  }
}

/** Creates a user and a workspace it owns, in one transaction. */
export async function createUserWithWorkspace(
  prisma: PrismaClient,
  input: NewUser,
  options: { iterations?: number } = {},
): Promise<{ user: UserView; workspace: { workspaceId: string; name: string; role: "owner" } }> {
  const existing = await prisma.user.findUnique({ where: { email: input.email }, select: { id: true } });
  if (existing) throw new UserExists(input.email);
  const passwordHash = await hashPassword(input.password, options.iterations);
  const userId = newId("usr");
  const workspaceId = newId("ws");
  // The unique e-mail index still guards a concurrent creation (Prisma P2002: the API answers 409).
  const [user, workspace] = await prisma.$transaction([
    prisma.user.create({ data: { id: userId, email: input.email, name: input.name, passwordHash } }),
    prisma.workspace.create({ data: { id: workspaceId, name: input.workspace } }),
    prisma.membership.create({ data: { userId, workspaceId, role: "owner" } }),
  ]);
  return {
    user: { id: user.id, email: user.email, name: user.name },
    workspace: { workspaceId: workspace.id, name: workspace.name, role: "owner" },
  };
}
