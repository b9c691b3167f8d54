import { Router } from "express";
import type { PrismaClient } from "../../../lib/db.js";
import { newId } from "../../../lib/ids.js";
import { requireAuth } from "../../auth/authenticate.middleware.js";
import { authorize } from "../../auth/permissions.js";
import type { MembersService } from "./members.service.js";
import { addMemberSchema, createWorkspaceSchema, updateMemberSchema, userIdSchema } from "./workspaces.schema.js";

/** /api/workspaces: the caller's workspaces. /api/workspace/members: members of the current one. */
export function createWorkspacesRouter({ prisma, members }: { prisma: PrismaClient; members: MembersService }) {
  const router = Router();

  router.get("/workspaces", async (req, res) => {
    const auth = requireAuth(req);
    const memberships = await prisma.membership.findMany({
      where: { userId: auth.user.id },
      select: { role: true, workspace: { select: { id: true, name: true } } },
      orderBy: { createdAt: "asc" },
    });
    res.json({
      items: memberships.map((m) => ({
        workspaceId: m.workspace.id,
        name: m.workspace.name,
        role: m.role,
        current: m.workspace.id === auth.workspace.workspaceId,
      })),
    });
  });

  /** Any user may create a workspace; they become its owner. */
  router.post("/workspaces", async (req, res) => {
    const auth = requireAuth(req);
    const { name } = createWorkspaceSchema.parse(req.body);
    const id = newId("ws");
    await prisma.$transaction([
      prisma.workspace.create({ data: { id, name } }),
      prisma.membership.create({ data: { userId: auth.user.id, workspaceId: id, role: "owner" } }),
    ]);
    res.status(201).json({ workspaceId: id, name, role: "owner" });
  });

  router.get("/workspace/members", authorize("workspace:read"), async (req, res) => {
    res.json({ items: await members.list(requireAuth(req).workspace.workspaceId) });
  });

  router.post("/workspace/members", authorize("members:manage"), async (req, res) => {
    const member = await members.add(requireAuth(req), addMemberSchema.parse(req.body));
    res.status(201).json(member);
  });

  router.put("/workspace/members/:userId", authorize("members:manage"), async (req, res) => {
    const userId = userIdSchema.parse(req.params.userId);
    const { role } = updateMemberSchema.parse(req.body);
    res.json(await members.updateRole(requireAuth(req), userId, role));
  });

  // Members may remove themselves; removing others needs members:manage (checked by the service).
  router.delete("/workspace/members/:userId", async (req, res) => {
    await members.remove(requireAuth(req), userIdSchema.parse(req.params.userId));
    res.json({ ok: true });
  });

  return router;
}
