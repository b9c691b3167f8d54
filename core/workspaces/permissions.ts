// Roles and the permission table: pure data, checked by the API's authorize() and by the services
// that decide by role (members, waits).
export const ROLES = ["viewer", "editor", "admin", "owner"] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2, owner: 3 };

/**
 * The permission table (README: "Roles and permissions"): the least role each action needs.
 * Viewers read; editors build and run; admins manage members and settings; owners everything.
 */
export const PERMISSIONS = {
  "workspace:read": "viewer",
  "flows:write": "editor",
  "runs:write": "editor",
  // Approve or reject the wait nodes' approvals (a node may ask for a higher role, or one member).
  "waits:decide": "editor",
  "members:manage": "admin",
  "settings:manage": "admin",
  // Reading a credential shows no secret; saving flows that use one needs flows:write.
  "credentials:manage": "admin",
  // Workspace API tokens: created, listed and revoked by admins, never by a token.
  "tokens:manage": "admin",
  // The audit log (GET /api/audit): read by admins, changed by no one.
  "audit:read": "admin",
  "owners:manage": "owner",
} as const satisfies Record<string, Role>;

export type Permission = keyof typeof PERMISSIONS;

export function can(role: Role, permission: Permission): boolean {
  return RANK[role] >= RANK[PERMISSIONS[permission]];
}
