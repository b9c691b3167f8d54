import type { InvitesService } from "../../../core/workspaces/invites.service.js";
import { setSessionCookie } from "../../auth/session-cookie.js";
import type { SessionService } from "../../auth/sessions.service.js";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import type { RateLimiter } from "../../http/rate-limiter.js";
import type { AuthService } from "../auth/auth.service.js";
import { sessionView, sessionViewSchema } from "../auth/auth.router.js";
import { loginSource } from "../auth/login-throttle.js";
import { acceptInviteSchema, invitePreviewSchema, inviteTokenParams } from "./invites.schema.js";

/** Requests to the invite endpoints from one address, per window: the token is the only authority. */
export const INVITE_MAX_REQUESTS_PER_IP = 60;
export const INVITE_RATE_WINDOW_MS = 600_000;

/**
 * /api/invites/:token: the public side of invites (the link's page reads and accepts one). The
 * workspace's side (list, revoke) is under /api/workspace/invites.
 */
export function createInvitesRouter(
  deps: { invites: InvitesService; auth: AuthService; sessions: SessionService; rateLimiter: RateLimiter },
  docs: ApiDocs,
) {
  const { invites, auth, sessions, rateLimiter } = deps;
  const { router, route } = documentedRouter(docs, "/api/invites", "workspaces");

  async function limit(ip: string | undefined) {
    const hits = await rateLimiter.hit(`invite:ip:${loginSource(ip ?? "unknown")}`, INVITE_RATE_WINDOW_MS);
    if (hits.count > INVITE_MAX_REQUESTS_PER_IP) {
      throw rateLimiter.tooManyRequests("Too many invite requests from this address; try again later", hits.resetAt);
    }
  }

  route(
    {
      method: "get",
      path: "/:token",
      summary: "What an invite link offers: the workspace, the role, the e-mail",
      public: true,
      params: inviteTokenParams,
      responses: {
        200: { description: "The invite", schema: invitePreviewSchema },
        404: "No such invite (revoked, or a wrong link)",
        409: "Accepted already",
        410: "Expired",
        429: "Too many requests (Retry-After)",
      },
    },
    async (req, res) => {
      await limit(req.ip);
      res.json(await invites.preview(req.input.params.token));
    },
  );

  // An e-mail with an account accepts with that account's password (the same limits as a login):
  // holding the link alone must not add a workspace to someone else's account.
  route(
    {
      method: "post",
      path: "/:token/accept",
      summary: "Accept an invite: creates the account (or checks its password), joins, and logs in",
      public: true,
      params: inviteTokenParams,
      body: acceptInviteSchema,
      responses: {
        200: { description: "Joined and logged in; sets the svc_session cookie", schema: sessionViewSchema },
        400: "Malformed body, or a new account's name or password missing or too short",
        401: "The existing account's password is wrong",
        403: "A cross-site request",
        404: "No such invite (revoked, or a wrong link)",
        409: "Accepted already, or already a member",
        410: "Expired",
        429: "Too many requests or attempts (Retry-After)",
      },
    },
    async (req, res) => {
      await limit(req.ip);
      const { params, body } = req.input;
      const { email, userId } = await invites.accountFor(params.token);
      const account = userId
        ? { userId: (await auth.checkCredentials(email, body.password, req.ip ?? "unknown")).id }
        : { name: body.name, password: body.password };
      const joined = await invites.accept(params.token, account);
      const { token, context } = await sessions.create(joined.userId, joined.workspaceId);
      // A session of another account on this browser is replaced, as a login replaces it.
      setSessionCookie(res, token);
      res.json(sessionView(context));
    },
  );

  return router;
}
