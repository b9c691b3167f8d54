import { z } from "zod";
import type { InvitesService } from "../../../core/workspaces/invites.service.js";
import type { MembersService } from "../../../core/workspaces/members.service.js";
import type { WorkspacesService } from "../../../core/workspaces/workspaces.service.js";
import { auditContext, auditSource } from "../../http/audit-context.js";
import { authorize } from "../../http/authenticate.middleware.js";
import { decodeCursor, isTimeIdCursor, keysetPage } from "../../http/cursor.js";
import { documentedRouter, type ApiDocs, type DeclareRoute } from "../../http/openapi.js";
import {
  addMemberSchema,
  createWorkspaceSchema,
  inviteCreatedSchema,
  inviteIdSchema,
  inviteViewSchema,
  listMembersQuerySchema,
  memberViewSchema,
  ownerOfferSchema,
  passwordResetIssuedSchema,
  updateMemberSchema,
  updateWorkspaceSettingsSchema,
  userIdSchema,
  userWorkspaceSchema,
  workspaceSettingsSchema,
} from "./workspaces.schema.js";

const memberParams = z.object({ userId: userIdSchema });
const inviteParams = z.object({ inviteId: inviteIdSchema });
const isMemberCursor = isTimeIdCursor("t");

/**
 * /api/workspaces: the caller's workspaces. /api/workspace/members and /invites: members of the
 * current one, and the e-mails invited to it.
 */
interface WorkspacesRouterDeps {
  workspaces: WorkspacesService;
  members: MembersService;
  invites: InvitesService;
}

/**
 * /api/workspaces: the caller's workspaces. /api/workspace/members and /invites: members of the
 * current one, and the e-mails invited to it.
 */
export function createWorkspacesRouter({ workspaces, members, invites }: WorkspacesRouterDeps, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api", "workspaces");
  workspaceRoutes(route, workspaces);
  memberListRoutes(route, members);
  memberRoutes(route, members);
  inviteListRoutes(route, invites);
  return router;
}

/** The caller's workspaces, and the current one's settings. */
function workspaceRoutes(route: DeclareRoute, workspaces: WorkspacesService) {
  route(
    {
      method: "get",
      path: "/workspaces",
      scope: "session",
      summary: "The workspaces of the user",
      responses: {
        200: { description: "The workspaces", schema: z.object({ items: z.array(userWorkspaceSchema) }) },
      },
    },
    async (req, res) => {
      res.json({ items: await workspaces.listFor(req.input.auth) });
    },
  );

  // Any user may create a workspace; they become its owner.
  route(
    {
      method: "post",
      path: "/workspaces",
      scope: "session",
      summary: "Create a workspace owned by the user",
      body: createWorkspaceSchema,
      responses: { 201: "Created", 400: "Malformed body" },
    },
    async (req, res) => {
      res.status(201).json(await workspaces.create(req.input.auth, req.input.body.name, auditSource(req)));
    },
  );

  route(
    {
      method: "get",
      path: "/workspace/settings",
      scope: "read",
      summary: "The current workspace's settings (its error flow)",
      responses: { 200: { description: "The settings", schema: workspaceSettingsSchema } },
    },
    authorize("workspace:read"),
    async (req, res) => {
      res.json(await workspaces.settings(req.input.workspaceId));
    },
  );

  route(
    {
      method: "put",
      path: "/workspace/settings",
      scope: "admin",
      summary: "Change the current workspace's settings",
      body: updateWorkspaceSettingsSchema,
      responses: {
        200: { description: "The settings", schema: workspaceSettingsSchema },
        400: "Malformed body, or no such flow",
        403: "Role too low (admin)",
      },
    },
    authorize("settings:manage"),
    async (req, res) => {
      res.json(await workspaces.updateSettings(req.input.workspaceId, req.input.body, auditContext(req)));
    },
  );
}

/** GET and POST /workspace/members: the members, and adding one (by invite). */
function memberListRoutes(route: DeclareRoute, members: MembersService) {
  route(
    {
      method: "get",
      path: "/workspace/members",
      scope: "read",
      summary: "Members of the current workspace, a page at a time in the order they joined",
      query: listMembersQuerySchema,
      responses: {
        200: {
          description: "A page of members and next_cursor",
          schema: z.object({ items: z.array(memberViewSchema), next_cursor: z.string().nullable() }),
        },
        400: "Bad query",
      },
    },
    authorize("workspace:read"),
    async (req, res) => {
      const { limit, cursor } = req.input.query;
      const after = decodeCursor(cursor, isMemberCursor);
      const items = await members.list(req.input.workspaceId, {
        limit: limit + 1,
        after: after && { time: new Date(after.t), id: after.id },
      });
      const { page, next_cursor } = keysetPage(items, limit, (last) => ({ t: last.joined_at, id: last.user.id }));
      res.json({ items: page, next_cursor });
    },
  );

  route(
    {
      method: "post",
      path: "/workspace/members",
      scope: "session",
      summary: "Invite a member by e-mail (a one-time link); they join when they accept",
      body: addMemberSchema,
      responses: {
        201: {
          description: "Invited: the invite and its link, the same whether an account has the e-mail or not",
          schema: inviteCreatedSchema,
        },
        400: "Malformed body, or name or password given (the invitee chooses them)",
        403: "Role too low",
        409: "Already a member",
      },
    },
    authorize("members:manage"),
    async (req, res) => {
      const { email, role } = req.input.body;
      res.status(201).json(await members.add(req.input.auth, { email, role }, auditSource(req)));
    },
  );
}

/** /workspace/members/{userId}: a member's role, a password reset link for them, their removal. */
function memberRoutes(route: DeclareRoute, members: MembersService) {
  route(
    {
      method: "put",
      path: "/workspace/members/:userId",
      scope: "session",
      summary: "Change a member's role; the owner role is offered, and taken when the member accepts",
      params: memberParams,
      body: updateMemberSchema,
      responses: {
        200: { description: "Updated", schema: memberViewSchema },
        202: {
          description: "The owner role offered: the member unchanged, and the offer's link",
          schema: ownerOfferSchema,
        },
        403: "Role too low",
        404: "No such member",
        409: "The last owner",
      },
    },
    authorize("members:manage"),
    async (req, res) => {
      const { auth, params, body } = req.input;
      const result = await members.updateRole(auth, params.userId, body.role, auditSource(req));
      res.status("offer" in result ? 202 : 200).json(result);
    },
  );

  route(
    {
      method: "post",
      path: "/workspace/members/:userId/password-reset",
      scope: "session",
      summary: "A one-time link that sets the member's password, for the caller to pass on",
      params: memberParams,
      responses: {
        201: { description: "The link", schema: passwordResetIssuedSchema },
        403: "Role too low, or the member belongs to workspaces the caller does not manage (reset_needs_operator)",
        404: "No such member",
        409: "The operator's reset link for the member is pending (reset_operator_pending)",
      },
    },
    authorize("members:manage"),
    async (req, res) => {
      res.status(201).json(await members.issuePasswordReset(req.input.auth, req.input.params.userId, auditSource(req)));
    },
  );

  // Members may remove themselves; removing others needs members:manage (checked by the service).
  route(
    {
      method: "delete",
      path: "/workspace/members/:userId",
      scope: "session",
      summary: "Remove a member, or leave the workspace",
      params: memberParams,
      responses: { 200: "Removed", 403: "Role too low", 404: "No such member", 409: "The last owner" },
    },
    async (req, res) => {
      await members.remove(req.input.auth, req.input.params.userId, auditSource(req));
      res.json({ ok: true });
    },
  );
}

/** /workspace/invites: the e-mails invited, and withdrawing an invite. */
function inviteListRoutes(route: DeclareRoute, invites: InvitesService) {
  route(
    {
      method: "get",
      path: "/workspace/invites",
      scope: "read",
      summary: "The current workspace's invites not yet accepted, newest first",
      responses: { 200: { description: "The invites", schema: z.object({ items: z.array(inviteViewSchema) }) } },
    },
    authorize("workspace:read"),
    async (req, res) => {
      res.json({ items: await invites.list(req.input.workspaceId) });
    },
  );

  route(
    {
      method: "delete",
      path: "/workspace/invites/:inviteId",
      scope: "session",
      summary: "Revoke an invite: its link stops working",
      params: inviteParams,
      responses: { 200: "Revoked", 403: "Role too low", 404: "No such invite, or accepted already" },
    },
    authorize("members:manage"),
    async (req, res) => {
      await invites.revoke(req.input.auth, req.input.params.inviteId, auditSource(req));
      res.json({ ok: true });
    },
  );
}
