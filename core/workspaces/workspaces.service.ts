// Workspaces: those a user belongs to, and new ones (their creator becomes owner).
import type { PrismaClient } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import type { Actor, WorkspaceView } from "./actor.js";

export function createWorkspacesService({ prisma }: { prisma: PrismaClient }) {
  return {
    /** The actor's workspaces in the order they joined them; `current` marks the one they act in. */
    async listFor(actor: Actor): Promise<Array<WorkspaceView & { current: boolean }>> {
      const memberships = await prisma.membership.findMany({
        where: { userId: actor.user.id },
        select: { role: true, workspace: { select: { id: true, name: true } } },
        orderBy: { createdAt: "asc" },
      });
      return memberships.map((m) => ({
        workspaceId: m.workspace.id,
        name: m.workspace.name,
        role: m.role,
        current: m.workspace.id === actor.workspace.workspaceId,
      }));
    },

    /** A new workspace owned by the actor. */
    async create(actor: Actor, name: string): Promise<WorkspaceView> {
      const id = newId("ws");
      await prisma.$transaction([
        prisma.workspace.create({ data: { id, name } }),
        prisma.membership.create({ data: { userId: actor.user.id, workspaceId: id, role: "owner" } }),
      ]);
      return { workspaceId: id, name, role: "owner" };
    },
  };
}

export type WorkspacesService = ReturnType<typeof createWorkspacesService>;
