import { z } from "zod";
import type { PrismaClient } from "../../../lib/db.js";
import { newId } from "../../../lib/ids.js";
import { authorize } from "../../auth/authenticate.middleware.js";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import type { MembersService } from "./members.service.js";
import {
  addMemberSchema,
  createWorkspaceSchema,
  listMembersQuerySchema,
  updateMemberSchema,
  userIdSchema,
} from "./workspaces.schema.js";

const memberParams = z.object({ userId: userIdSchema });

/** /api/workspaces: the caller's workspaces. /api/workspace/members: members of the current one. */
export function createWorkspacesRouter(
  { prisma, members }: { prisma: PrismaClient; members: MembersService },
  docs: ApiDocs,
) {
  const { router, route } = documentedRouter(docs, "/api", "workspaces");

  route(
    { method: "get", path: "/workspaces", summary: "The workspaces of the user", responses: { 200: "The workspaces" } },
    async (req, res) => {
      const { auth } = req.input;
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
    },
  );

  // Any user may create a workspace; they become its owner.
  route(
    {
      method: "post",
      path: "/workspaces",
      summary: "Create a workspace owned by the user",
      body: createWorkspaceSchema,
      responses: { 201: "Created", 400: "Malformed body" },
    },
    async (req, res) => {
      const { auth, body } = req.input;
      const { name } = body;
      const id = newId("ws");
      await prisma.$transaction([
        prisma.workspace.create({ data: { id, name } }),
        prisma.membership.create({ data: { userId: auth.user.id, workspaceId: id, role: "owner" } }),
      ]);
      res.status(201).json({ workspaceId: id, name, role: "owner" });
    },
  );

  route(
    {
      method: "get",
      path: "/workspace/members",
      summary: "Members of the current workspace, a page at a time in the order they joined",
      query: listMembersQuerySchema,
      responses: { 200: "A page of members and next_cursor", 400: "Bad query" },
    },
    authorize("workspace:read"),
    async (req, res) => {
      res.json(await members.list(req.input.workspaceId, req.input.query));
    },
  );

  route(
    {
      method: "post",
      path: "/workspace/members",
      summary: "Add a member (creating the account when name and password are given)",
      body: addMemberSchema,
      responses: {
        201: "Added",
        400: "Malformed body",
        403: "Role too low",
        404: "No such account",
        409: "Already a member",
      },
    },
    authorize("members:manage"),
    async (req, res) => {
      const member = await members.add(req.input.auth, req.input.body);
      res.status(201).json(member);
    },
  );

  route(
    {
      method: "put",
      path: "/workspace/members/:userId",
      summary: "Change a member's role",
      params: memberParams,
      body: updateMemberSchema,
      responses: { 200: "Updated", 403: "Role too low", 404: "No such member", 409: "The last owner" },
    },
    authorize("members:manage"),
    async (req, res) => {
      const { auth, params, body } = req.input;
      res.json(await members.updateRole(auth, params.userId, body.role));
    },
  );

  // Members may remove themselves; removing others needs members:manage (checked by the service).
  route(
    {
      method: "delete",
      path: "/workspace/members/:userId",
      summary: "Remove a member, or leave the workspace",
      params: memberParams,
      responses: { 200: "Removed", 403: "Role too low", 404: "No such member", 409: "The last owner" },
    },
    async (req, res) => {
      await members.remove(req.input.auth, req.input.params.userId);
      res.json({ ok: true });
    },
  );

  return router;
}
