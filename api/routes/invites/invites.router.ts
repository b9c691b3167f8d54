import { z } from "zod";
import { InvalidInput } from "../../../core/errors.js";
import type { InvitesService } from "../../../core/workspaces/invites.service.js";
import { auditSource } from "../../http/audit-context.js";
import { setSessionCookie } from "../../http/session-cookie.js";
import type { AuthContext, SessionService } from "../../../core/sessions/sessions.service.js";
import { documentedRouter, type ApiDocs, type DeclareRoute } from "../../http/openapi.js";
import type { RateLimiter } from "../../../core/rate-limiter.js";
import type { AuthService } from "../../../core/sessions/auth.service.js";
import { sessionView, sessionViewSchema } from "../auth/auth.router.js";
import { loginSource } from "../../../core/sessions/login-throttle.js";
import { acceptInviteSchema, invitePreviewSchema, inviteTokenParams } from "./invites.schema.js";

/** The window of INVITE_MAX_REQUESTS_PER_IP, requests to the invite endpoints from one address: the token is the only authority. */
const INVITE_RATE_WINDOW_MS = 600_000;

/** How an invite link's own state is answered (accepting adds its own cases). */
const INVITE_LINK_STATES = {
  404: "No such invite (revoked, declined, or a wrong link)",
  409: "Accepted already",
  410: "Expired",
  429: "Too many requests (Retry-After)",
} as const;

interface InvitesRouterDeps {
  invites: InvitesService;
  auth: AuthService;
  sessions: SessionService;
  rateLimiter: RateLimiter;
  /** INVITE_MAX_REQUESTS_PER_IP. */
  requestsPerIp: number;
}

/** Counts a request to the invite endpoints against its address's limit. */
async function limitInviteRequests(
  { rateLimiter, requestsPerIp }: Pick<InvitesRouterDeps, "rateLimiter" | "requestsPerIp">,
  ip: string | undefined,
) {
  const hits = await rateLimiter.hit(`invite:ip:${loginSource(ip ?? "unknown")}`, INVITE_RATE_WINDOW_MS);
  if (hits.count > requestsPerIp) {
    throw rateLimiter.tooManyRequests("Too many invite requests from this address; try again later", hits.resetAt);
  }
}

/**
 * Who accepts: the caller's session when it is the invited account's; else, without a name, the
 * account whose password is given (checked as a login is, so an e-mail no account has answers
 * like a wrong password); with a name, a new account, unless one has the e-mail (then its password).
 */
async function acceptingAccount(
  { invites, auth }: Pick<InvitesRouterDeps, "invites" | "auth">,
  token: string,
  body: { name?: string; password?: string },
  session: AuthContext | undefined,
  ip: string,
) {
  const { email, userId } = await invites.accountFor(token);
  if (session && session.user.email === email) return { userId: session.user.id };
  if (body.password === undefined) {
    throw new InvalidInput("Give the account's password, or log in as the invited account first", [
      { path: "password", message: "required unless logged in as the invited account" },
    ]);
  }
  if (userId || body.name === undefined) return { userId: (await auth.checkCredentials(email, body.password, ip)).id };
  return { name: body.name, password: body.password };
}

/**
 * /api/invites/:token: the public side of invites (the link's page reads and accepts one). The
 * workspace's side (list, revoke) is under /api/workspace/invites.
 */
export function createInvitesRouter(deps: InvitesRouterDeps, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/invites", "workspaces");
  const limit = (ip: string | undefined) => limitInviteRequests(deps, ip);
  invitePreviewRoute(route, deps, limit);
  inviteAnswerRoutes(route, deps, limit);
  return router;
}

type LimitRequests = (ip: string | undefined) => Promise<void>;

/** GET /{token}: what the link offers. */
function invitePreviewRoute(route: DeclareRoute, { invites }: InvitesRouterDeps, limit: LimitRequests) {
  route(
    {
      method: "get",
      path: "/:token",
      summary: "What an invite link offers: the workspace, the role, the e-mail",
      public: true,
      params: inviteTokenParams,
      responses: {
        200: { description: "The invite", schema: invitePreviewSchema },
        ...INVITE_LINK_STATES,
      },
    },
    async (req, res) => {
      await limit(req.ip);
      res.json(await invites.preview(req.input.params.token));
    },
  );
}

/** Accepting or declining through the link. */
function inviteAnswerRoutes(route: DeclareRoute, deps: InvitesRouterDeps, limit: LimitRequests) {
  const { invites, sessions } = deps;
  // An e-mail with an account accepts with that account's session or password (the same limits
  // as a login): holding the link alone must not add a workspace to someone else's account.
  route(
    {
      method: "post",
      path: "/:token/accept",
      summary: "Accept an invite: creates the account (or checks its session or password), joins, and logs in",
      public: true,
      params: inviteTokenParams,
      body: acceptInviteSchema,
      absentBodyIsEmpty: true,
      responses: {
        200: { description: "Joined and logged in; sets the svc_session cookie", schema: sessionViewSchema },
        400: "Malformed body, or a new account's name or password missing or too short",
        401: "The password is wrong, or (without a name) no account has the e-mail",
        403: "A cross-site request, or an account whose password must be reset (password_reset_required)",
        404: "No such invite (revoked, or a wrong link)",
        409: "Accepted already, or already a member",
        410: "Expired, or an owner invite whose inviter is no longer an owner",
        429: "Too many requests or attempts (Retry-After)",
      },
    },
    async (req, res) => {
      await limit(req.ip);
      const { params, body } = req.input;
      const account = await acceptingAccount(deps, params.token, body, req.auth, req.ip ?? "unknown");
      const joined = await invites.accept(params.token, account, auditSource(req));
      if (req.auth && "userId" in account && req.auth.user.id === account.userId) {
        // Accepted with the caller's own session: it moves to the workspace joined.
        res.json(sessionView(await sessions.switchWorkspace(req.auth.sessionId, joined.workspaceId)));
        return;
      }
      const { token, context } = await sessions.create(joined.userId, joined.workspaceId);
      // A session of another account on this browser is replaced, as a login replaces it.
      setSessionCookie(res, token);
      res.json(sessionView(context));
    },
  );

  route(
    {
      method: "post",
      path: "/:token/decline",
      summary: "Decline an invite: its link stops working, and nobody joins",
      public: true,
      params: inviteTokenParams,
      responses: {
        200: { description: "Declined", schema: z.object({ ok: z.literal(true) }) },
        403: "A cross-site request",
        ...INVITE_LINK_STATES,
      },
    },
    async (req, res) => {
      await limit(req.ip);
      await invites.decline(req.input.params.token);
      res.json({ ok: true });
    },
  );
}
