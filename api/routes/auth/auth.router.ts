import { z } from "zod";
import { ROLES } from "../../../core/workspaces/permissions.js";
import { clearSessionCookie, setSessionCookie } from "../../auth/session-cookie.js";
import type { AuthContext, SessionService } from "../../auth/sessions.service.js";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import { changePasswordSchema, loginSchema, switchWorkspaceSchema } from "./auth.schema.js";
import type { AuthService } from "./auth.service.js";

/** The spec's session shape: `{ authenticated: true, user, workspace }`. */
export const sessionView = (context: AuthContext) => ({
  authenticated: true as const,
  user: context.user,
  workspace: context.workspace,
});

export const sessionViewSchema = z
  .object({
    authenticated: z.literal(true),
    user: z.object({ id: z.string(), email: z.string(), name: z.string() }),
    workspace: z.object({ workspaceId: z.string(), name: z.string(), role: z.enum(ROLES) }),
  })
  .meta({ id: "Session", description: "The spec's session shape" });

export function createAuthRouter({ auth, sessions }: { auth: AuthService; sessions: SessionService }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/auth", "auth");

  route(
    {
      method: "post",
      path: "/login",
      summary: "Log in; sets the svc_session cookie",
      public: true,
      body: loginSchema,
      responses: {
        200: { description: "Logged in", schema: sessionViewSchema },
        400: "Malformed body",
        401: "Invalid email or password",
        403: "Not a member of the requested workspace, or a cross-site request",
        413: "Body too large",
        429: "Too many attempts (Retry-After)",
      },
    },
    async (req, res) => {
      const { token, context } = await auth.login(req.input.body, req.ip ?? "unknown");
      // A session cookie from an earlier login on this browser is replaced, never reused.
      setSessionCookie(res, token);
      res.json(sessionView(context));
    },
  );

  route(
    {
      method: "get",
      path: "/session",
      summary: "The current session",
      public: true,
      responses: {
        200: { description: "Valid session", schema: sessionViewSchema },
        401: { description: "No valid session", schema: z.object({ authenticated: z.literal(false) }) },
      },
    },
    (req, res) => {
      if (!req.auth) {
        res.status(401).json({ authenticated: false });
        return;
      }
      res.json(sessionView(req.auth));
    },
  );

  route(
    {
      method: "delete",
      path: "/session",
      summary: "Log out: delete the session and clear the cookie",
      public: true,
      responses: { 200: { description: "Logged out", schema: z.object({ ok: z.literal(true) }) } },
    },
    async (req, res) => {
      if (req.auth) await sessions.end(req.auth.sessionId);
      clearSessionCookie(res);
      res.json({ ok: true });
    },
  );

  route(
    {
      method: "put",
      path: "/session",
      summary: "Switch the session to another workspace of the user",
      body: switchWorkspaceSchema,
      responses: { 200: { description: "Switched", schema: sessionViewSchema }, 403: "Not a member of that workspace" },
    },
    async (req, res) => {
      res.json(sessionView(await auth.switchWorkspace(req.input.auth, req.input.body.workspaceId)));
    },
  );

  route(
    {
      method: "put",
      path: "/password",
      summary: "Change the password; ends every session of the user and sets a new cookie",
      body: changePasswordSchema,
      responses: {
        200: "Changed",
        400: "Malformed body",
        403: "The current password is not correct",
        429: "Too many attempts",
      },
    },
    async (req, res) => {
      const { auth: current, body: input } = req.input;
      const { token, context } = await auth.changePassword(
        current,
        input.current_password,
        input.new_password,
        req.ip ?? "unknown",
      );
      setSessionCookie(res, token);
      res.json({ ok: true, ...sessionView(context) });
    },
  );

  return router;
}
