import type { RequestHandler, Request } from "express";
import { forbidden, unauthorized } from "./errors.js";
import { can, type Permission } from "../../core/workspaces/permissions.js";
import type { TokenCaller } from "../../core/tokens/api-tokens.service.js";
import { readSessionToken } from "./session-cookie.js";
import type { AuthContext, SessionService } from "../../core/sessions/sessions.service.js";
import { authorizeToken, hasBearer, type BearerAuthentication, type Caller } from "./bearer-token.js";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by `authenticate` when the request carries a valid session cookie. */
      auth?: AuthContext;
      /** Set by `authenticate` when the request carries a valid API token (then `auth` never is). */
      token?: TokenCaller;
    }
  }
}

/**
 * Attaches the caller's session, if the cookie names a valid one, or, given `bearer`, the API
 * token of an `Authorization: Bearer` request (whose cookie is then never read; a bad token is a
 * 401 at once). Never refuses a request without credentials on its own.
 */
export function createAuthenticate(sessions: SessionService, bearer?: BearerAuthentication): RequestHandler {
  return async (req, _res, next) => {
    if (bearer && hasBearer(req)) {
      req.token = await bearer(req);
      next();
      return;
    }
    const token = readSessionToken(req);
    if (token) req.auth = await sessions.resolve(token);
    next();
  };
}

/** 401 for requests without a valid session or API token. */
export const requireSession: RequestHandler = (req, _res, next) => {
  requireCaller(req);
  next();
};

export function requireAuth(req: Request): AuthContext {
  if (!req.auth) throw unauthorized("Authentication required: log in first");
  return req.auth;
}

/** The session or the API token of the request; 401 without either. */
export function requireCaller(req: Request): Caller {
  if (req.token) return req.token;
  return requireAuth(req);
}

/** 403 unless the session's role in its workspace grants `permission` (a token: its scopes, bearer-token.ts). */
export function authorize(permission: Permission): RequestHandler {
  return (req, _res, next) => {
    if (req.token) {
      authorizeToken(req.token, permission);
      next();
      return;
    }
    const { workspace } = requireAuth(req);
    if (!can(workspace.role, permission)) {
      throw forbidden(`Your role (${workspace.role}) does not allow this action (${permission})`);
    }
    next();
  };
}
