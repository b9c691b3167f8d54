import type { RequestHandler, Request } from "express";
import { forbidden, unauthorized } from "./errors.js";
import { can, type Permission } from "../../core/workspaces/permissions.js";
import { readSessionToken } from "./session-cookie.js";
import type { AuthContext, SessionService } from "../../core/sessions/sessions.service.js";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by `authenticate` when the request carries a valid session cookie. */
      auth?: AuthContext;
    }
  }
}

/** Attaches the caller's session, if the cookie names a valid one. Never refuses on its own. */
export function createAuthenticate(sessions: SessionService): RequestHandler {
  return async (req, _res, next) => {
    const token = readSessionToken(req);
    if (token) req.auth = await sessions.resolve(token);
    next();
  };
}

/** 401 for requests without a valid session. */
export const requireSession: RequestHandler = (req, _res, next) => {
  requireAuth(req);
  next();
};

export function requireAuth(req: Request): AuthContext {
  if (!req.auth) throw unauthorized("Authentication required: log in first");
  return req.auth;
}

/** 403 unless the session's role in its workspace grants `permission`. */
export function authorize(permission: Permission): RequestHandler {
  return (req, _res, next) => {
    const { workspace } = requireAuth(req);
    if (!can(workspace.role, permission)) {
      throw forbidden(`Your role (${workspace.role}) does not allow this action (${permission})`);
    }
    next();
  };
}
