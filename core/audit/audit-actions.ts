// The closed list of what the audit log records (core/audit/): a dotted verb per action, and the
// kind of object each names. A new action is added here first; the writer takes no other.

export const AUDIT_ACTIONS = [
  "auth.login_succeeded",
  "auth.login_failed",
  "auth.password_changed",
  "credential.created",
  "credential.updated",
  "credential.deleted",
  "credential.used",
  "token.created",
  "token.revoked",
  "flow.created",
  "flow.updated",
  "flow.draft_saved",
  "flow.published",
  "flow.activated",
  "flow.deactivated",
  "flow.deleted",
  "flow.hook_regenerated",
  "member.added",
  "member.role_changed",
  "member.removed",
  "member.ownership_offered",
  "member.ownership_accepted",
  "invite.created",
  "invite.revoked",
  "password_reset.issued",
  "password_reset.used",
  "workspace.created",
  "workspace.settings_changed",
  "wait.approved",
  "wait.rejected",
  "wait.resumed",
  "run.rerun",
  "run.bulk_rerun",
  "run.cancelled",
  "run.deleted",
  "agent_run.cancelled",
  "agent_memory.written",
  "operation.cancelled",
  "budget.set",
  "budget.removed",
  "price.set",
  "price.removed",
  "webhook.created",
  "webhook.updated",
  "webhook.deleted",
  "webhook.secret_rotated",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditObjectKind =
  | "user"
  | "credential"
  | "token"
  | "flow"
  | "member"
  | "invite"
  | "run"
  | "agent_run"
  | "agent"
  | "wait"
  | "workspace"
  | "operation"
  | "budget"
  | "webhook";
