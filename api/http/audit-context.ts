// What the audit log needs of a request: who acts (the session's person or the API token) and from
// where (the client address as Express resolves it, TRUST_PROXY applied; the user agent).
import type { Request } from "express";
import type { AuditContext, AuditSource } from "../../core/audit/audit-log.js";
import type { Actor } from "../../core/workspaces/actor.js";

export function auditSource(req: Request): AuditSource {
  return { ip: req.ip, userAgent: req.get("user-agent") };
}

export function auditContext(req: Request & { input: { auth: Actor } }): AuditContext {
  return { actor: req.input.auth, source: auditSource(req) };
}
