// Workspaces: those a user belongs to, and new ones (their creator becomes owner).
import type { PrismaClient } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import { DomainError } from "../errors.js";
import type { Actor, WorkspaceView } from "./actor.js";

/** The workspace's own settings. */
export interface WorkspaceSettings {
  /** The flow to run when a run fails whose version names no error flow of its own. */
  error_flow_id: string | null;
}

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

    async settings(workspaceId: string): Promise<WorkspaceSettings> {
      const workspace = await prisma.workspace.findUniqueOrThrow({
        where: { id: workspaceId },
        select: { errorFlowId: true },
      });
      return { error_flow_id: workspace.errorFlowId };
    },

    /** Changes the settings given; an error flow must be a flow of the workspace. */
    async updateSettings(workspaceId: string, change: Partial<WorkspaceSettings>): Promise<WorkspaceSettings> {
      if (change.error_flow_id) {
        const flow = await prisma.flow.findFirst({
          where: { id: change.error_flow_id, workspaceId },
          select: { id: true },
        });
        if (!flow) {
          throw new DomainError(
            "invalid",
            "invalid_settings",
            `error_flow_id: no flow ${change.error_flow_id} in this workspace`,
            {
              details: [{ path: "body.error_flow_id", message: "no such flow in this workspace" }],
            },
          );
        }
      }
      const workspace = await prisma.workspace.update({
        where: { id: workspaceId },
        data: change.error_flow_id === undefined ? {} : { errorFlowId: change.error_flow_id },
        select: { errorFlowId: true },
      });
      return { error_flow_id: workspace.errorFlowId };
    },
  };
}

export type WorkspacesService = ReturnType<typeof createWorkspacesService>;
