import { parseCookie } from "cookie";
import type { Request, Response } from "express";
import { SESSION_LIFETIME_SECONDS } from "../../core/sessions/sessions.service.js";

export const SESSION_COOKIE = "svc_session";

// The spec's attributes, in the spec's order. Secure and SameSite=None: dashboards on other
// origins send the cookie cross-site; CSRF is handled by the Origin check instead.
const ATTRIBUTES = "HttpOnly; Secure; SameSite=None; Path=/";

export function setSessionCookie(res: Response, token: string): void {
  res.append("Set-Cookie", `${SESSION_COOKIE}=${token}; ${ATTRIBUTES}; Max-Age=${SESSION_LIFETIME_SECONDS}`);
}

export function clearSessionCookie(res: Response): void {
  res.append("Set-Cookie", `${SESSION_COOKIE}=; ${ATTRIBUTES}; Max-Age=0`);
}

const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

/** The session token of the request's cookie, when it has the shape of one. */
export function readSessionToken(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  const token = parseCookie(header)[SESSION_COOKIE];
  return token && TOKEN_FORMAT.test(token) ? token : undefined;
}
