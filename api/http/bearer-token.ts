// `Authorization: Bearer <token>`: a program's request, judged by its workspace API token alone
// (core/tokens/). Such a request never reads the session cookie, needs no CSRF header (a browser
// never attaches the header on its own, so no other site can forge it), and counts against its
// token's own rate limit.
import type { Request, RequestHandler } from "express";
import type { ApiTokensService, TokenCaller, TokenRefusal } from "../../core/tokens/api-tokens.service.js";
import type { RateLimiter } from "../../core/rate-limiter.js";
import { PERMISSION_SCOPES, scopeAllows, type RouteScope } from "../../core/tokens/token-scopes.js";
import type { Permission } from "../../core/workspaces/permissions.js";
import { HttpError } from "./errors.js";
import type { AuthContext } from "../../core/sessions/sessions.service.js";

/** Who calls a route that is not public: a member's session, or a workspace API token. */
export type Caller = AuthContext | TokenCaller;

const TOKEN_RATE_WINDOW_MS = 60_000;
const BEARER = /^Bearer[ \t]+(\S*)[ \t]*$/i;

/** Whether the request carries a bearer credential (any other scheme, say a proxy's Basic, is not one). */
export function hasBearer(req: Pick<Request, "headers">): boolean {
  const header = req.headers.authorization;
  return header !== undefined && /^Bearer(\s|$)/i.test(header);
}

const REFUSALS: Record<TokenRefusal, string> = {
  malformed: "The bearer token is not an API token of this service",
  unknown: "Unknown API token",
  revoked: "This API token has been revoked",
  creator_left: "This API token's creator no longer manages this workspace's tokens: an admin creates a new one",
  expired: "This API token has expired",
};

/**
 * The caller of a bearer request, or a 401 at once (a revoked or expired token, a malformed one,
 * an unknown one), or a 429 past API_TOKEN_RATE_LIMIT requests a minute for the token.
 */
export function createBearerAuthentication({
  tokens,
  rateLimiter,
  ratePerMinute,
}: {
  tokens: ApiTokensService;
  rateLimiter: RateLimiter;
  ratePerMinute: number;
}) {
  return async (req: Request): Promise<TokenCaller> => {
    const presented = BEARER.exec(req.headers.authorization ?? "")?.[1] ?? "";
    const outcome = await tokens.authenticate(presented, req.ip ?? "unknown");
    if ("refused" in outcome) {
      throw new HttpError(401, "invalid_token", REFUSALS[outcome.refused], {}, { "WWW-Authenticate": "Bearer" });
    }
    const { count, resetAt } = await rateLimiter.hit(`token:${outcome.caller.token.id}`, TOKEN_RATE_WINDOW_MS);
    if (count > ratePerMinute) {
      throw rateLimiter.tooManyRequests(`This API token takes at most ${ratePerMinute} requests a minute`, resetAt);
    }
    return outcome.caller;
  };
}

export type BearerAuthentication = ReturnType<typeof createBearerAuthentication>;

/** 403 unless the token holds the scope that stands for `permission` (none for people's decisions). */
export function authorizeToken(caller: TokenCaller, permission: Permission): void {
  const needed = PERMISSION_SCOPES[permission];
  if (!scopeAllows(caller.scopes, needed)) throw tokenForbidden(caller, needed);
}

/** 403 for a token without `scope` (or on a route for sessions only); a person's session passes. */
export function requireTokenScope(caller: Caller, scope: RouteScope | undefined): void {
  if (caller.kind === "token" && !scopeAllows(caller.scopes, scope)) throw tokenForbidden(caller, scope);
}

/** The refusal of a token's call: the scope it lacks, or that only a person's session may. */
export function tokenForbidden(caller: TokenCaller, needed: RouteScope | undefined): HttpError {
  return needed === undefined || needed === "session"
    ? new HttpError(403, "session_required", "Only a member's session may do this, not an API token")
    : new HttpError(403, "insufficient_scope", `This API token lacks the ${needed} scope`, {
        required_scope: needed,
        token_scopes: caller.scopes,
      });
}

/** `handler` for requests without a bearer credential; a bearer request skips it (the CSRF guard). */
export function unlessBearer(handler: RequestHandler): RequestHandler {
  return (req, res, next) => (hasBearer(req) ? next() : handler(req, res, next));
}
