import { createHash, randomBytes } from "node:crypto";
import { parseCookie } from "cookie";
import type { Request, Response } from "express";

export const SESSION_COOKIE = "svc_session";
/** The spec's session lifetime: 7 days, for the cookie and the stored session alike. */
export const SESSION_LIFETIME_SECONDS = 604_800;

// The spec's attributes, in the spec's order. Secure and SameSite=None: dashboards on other
// origins send the cookie cross-site; CSRF is handled by the Origin check instead.
const ATTRIBUTES = "HttpOnly; Secure; SameSite=None; Path=/";

/** 256 random bits, base64url: the cookie value. Only its hash is stored. */
export function newSessionToken(): string {
  return randomBytes(32).toString("base64url");
}

export function hashSessionToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

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
