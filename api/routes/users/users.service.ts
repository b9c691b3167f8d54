import type { PrismaClient } from "../../../lib/db.js";
import { newId } from "../../../lib/ids.js";
import { hashPassword } from "../../auth/password.js";
import { conflict } from "../../http/errors.js";
import type { NewUser } from "./users.schema.js";

export interface UserView {
  id: string;
  email: string;
  name: string;
}

export interface WorkspaceView {
  workspaceId: string;
  name: string;
  role: string;
}

/** Creates a user and a workspace it owns, in one transaction. */
export async function createUserWithWorkspace(
  prisma: PrismaClient,
  input: NewUser,
  options: { iterations?: number } = {},
): Promise<{ user: UserView; workspace: WorkspaceView }> {
  const existing = await prisma.user.findUnique({ where: { email: input.email }, select: { id: true } });
  if (existing) throw conflict(`A user with e-mail ${input.email} already exists`);
  const passwordHash = await hashPassword(input.password, options.iterations);
  const userId = newId("usr");
  const workspaceId = newId("ws");
  // The unique e-mail index still guards a concurrent creation: P2002 becomes a 409.
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
