import { z } from "zod";
import type { PasswordResetsService } from "../../../core/workspaces/password-resets.service.js";
import { ROLES } from "../../../core/workspaces/permissions.js";
import { auditSource } from "../../http/audit-context.js";
import { clearSessionCookie, setSessionCookie } from "../../http/session-cookie.js";
import type { AuthContext, SessionService } from "../../../core/sessions/sessions.service.js";
import { documentedRouter, type ApiDocs, type DeclareRoute } from "../../http/openapi.js";
import type { RateLimiter } from "../../../core/rate-limiter.js";
import {
  changePasswordSchema,
  completePasswordResetSchema,
  loginSchema,
  passwordResetPreviewSchema,
  passwordResetTokenParams,
  switchWorkspaceSchema,
} from "./auth.schema.js";
import type { AuthService } from "../../../core/sessions/auth.service.js";
import { loginSource } from "../../../core/sessions/login-throttle.js";

/** The window of PASSWORD_RESET_MAX_REQUESTS_PER_IP: the token is the only authority of a reset link. */
const PASSWORD_RESET_RATE_WINDOW_MS = 600_000;

/** How a reset link's own state is answered, wherever it is used. */
const RESET_LINK_STATES = {
  404: "No such link (replaced by a newer one, or a wrong link)",
  409: "Used already",
  410: "Expired (reset_expired), or no longer standing (reset_revoked): the account joined a workspace or changed its password or e-mail since, or the issuer no longer manages every workspace of it",
  429: "Too many requests (Retry-After)",
} as const;

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

interface AuthRouterDeps {
  auth: AuthService;
  sessions: SessionService;
  passwordResets: PasswordResetsService;
  rateLimiter: RateLimiter;
  /** PASSWORD_RESET_MAX_REQUESTS_PER_IP. */
  resetRequestsPerIp: number;
}

export function createAuthRouter(deps: AuthRouterDeps, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/auth", "auth");
  sessionRoutes(route, deps);
  passwordRoutes(route, deps);
  passwordResetRoutes(route, deps);
  return router;
}

/** Logging in and out, the session, and switching its workspace. */
function sessionRoutes(route: DeclareRoute, { auth, sessions }: Pick<AuthRouterDeps, "auth" | "sessions">) {
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
        403: "Not a member of the requested workspace, a cross-site request, or a password someone else chose (password_reset_required)",
        413: "Body too large",
        429: "Too many attempts (Retry-After)",
      },
    },
    async (req, res) => {
      const { token, context } = await auth.login(req.input.body, req.ip ?? "unknown", auditSource(req));
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
      scope: "session",
      summary: "Switch the session to another workspace of the user",
      body: switchWorkspaceSchema,
      responses: { 200: { description: "Switched", schema: sessionViewSchema }, 403: "Not a member of that workspace" },
    },
    async (req, res) => {
      res.json(sessionView(await auth.switchWorkspace(req.input.auth, req.input.body.workspaceId)));
    },
  );
}

/** PUT /password: a logged-in user's own password. */
function passwordRoutes(route: DeclareRoute, { auth }: Pick<AuthRouterDeps, "auth">) {
  route(
    {
      method: "put",
      path: "/password",
      scope: "session",
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
        auditSource(req),
      );
      setSessionCookie(res, token);
      res.json({ ok: true, ...sessionView(context) });
    },
  );
}

/** A password reset link, read and used without a session: the token is the only authority. */
function passwordResetRoutes(
  route: DeclareRoute,
  {
    passwordResets,
    rateLimiter,
    resetRequestsPerIp,
  }: Pick<AuthRouterDeps, "passwordResets" | "rateLimiter" | "resetRequestsPerIp">,
) {
  const limitResetLinks = (ip: string | undefined) =>
    rateLimiter
      .quota(
        `password-reset:ip:${loginSource(ip ?? "unknown")}`,
        PASSWORD_RESET_RATE_WINDOW_MS,
        resetRequestsPerIp,
        "Too many password reset requests from this address; try again later",
      )
      .countAlone();

  route(
    {
      method: "get",
      path: "/password-resets/:token",
      summary: "What a password reset link is for: the account's e-mail",
      public: true,
      params: passwordResetTokenParams,
      responses: {
        200: { description: "The link", schema: passwordResetPreviewSchema },
        ...RESET_LINK_STATES,
      },
    },
    async (req, res) => {
      await limitResetLinks(req.ip);
      res.json(await passwordResets.preview(req.input.params.token));
    },
  );

  route(
    {
      method: "post",
      path: "/password-resets/:token",
      summary: "Set the account's password through a reset link; ends every session of the account",
      public: true,
      params: passwordResetTokenParams,
      body: completePasswordResetSchema,
      responses: {
        200: {
          description: "Set: log in with the new password",
          schema: z.object({ ok: z.literal(true), email: z.string() }),
        },
        400: "Malformed body, or a password of the wrong length",
        403: "A cross-site request",
        ...RESET_LINK_STATES,
      },
    },
    async (req, res) => {
      await limitResetLinks(req.ip);
      const { email } = await passwordResets.complete(
        req.input.params.token,
        req.input.body.password,
        auditSource(req),
      );
      res.json({ ok: true, email });
    },
  );
}
