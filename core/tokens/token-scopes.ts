// What a workspace API token may do: its scopes. Every route of the API names the one scope a
// token needs to call it, or that only a person's session may (api/http/openapi.ts, `scope`).
import type { Permission } from "../workspaces/permissions.js";

/**
 * read: everything a viewer reads; run: start, cancel, retry and delete runs and agent runs;
 * write: create, change and delete flows, and (with run) run what the caller writes (a node test,
 * a test run of a draft: like saving a flow, it picks what is called and with which credential); admin: the workspace's settings, credentials,
 * AI keys and webhooks. A set, not a ladder: a CI job that starts runs and reads their results
 * holds `read` and `run`.
 */
export const TOKEN_SCOPES = ["read", "run", "write", "admin"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** A route's need: a token scope, or `session`: people only (their account, members, approvals, tokens). */
export type RouteScope = TokenScope | "session";

/**
 * The scope a token needs where a route checks a member's role: the same table seen from a
 * program. undefined: no token may (members, owners and approvals are decisions of people).
 */
export const PERMISSION_SCOPES: Record<Permission, TokenScope | undefined> = {
  "workspace:read": "read",
  "runs:write": "run",
  "flows:write": "write",
  "waits:decide": undefined,
  "members:manage": undefined,
  "settings:manage": "admin",
  "credentials:manage": "admin",
  "tokens:manage": undefined,
  "audit:read": "admin",
  "owners:manage": undefined,
};

/** Whether a token holding `scopes` may call a route that needs `needed`. */
export function scopeAllows(scopes: readonly TokenScope[], needed: RouteScope | undefined): boolean {
  return needed !== undefined && needed !== "session" && scopes.includes(needed);
}
