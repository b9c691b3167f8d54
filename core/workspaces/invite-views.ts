// Invites as the API shows them, and what an invite is read with.
import { randomBytes } from "node:crypto";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import type { PrismaClient } from "../../lib/db.js";
import type { LinkDelivery } from "./link-delivery.js";
import type { Role } from "./permissions.js";

export interface InviteDeps {
  prisma: PrismaClient;
  clock: Clock;
  config: Pick<Config, "PASSWORD_HASH_ITERATIONS">;
  delivery: LinkDelivery;
}

/** How long a link works. */
export const INVITE_LIFETIME_MS = 7 * 86_400_000;

/** The dashboard's page that accepts an invite (a path: the dashboard adds its own origin). */
export const invitePath = (token: string) => `/invite/${token}`;

export interface InviteView {
  id: string;
  email: string;
  role: Role;
  invited_by: { id: string; name: string } | null;
  created_at: string;
  expires_at: string;
  /** pending until expires_at, then expired (accepted invites are members and leave the list). */
  status: "pending" | "expired";
}

/**
 * A new invite. With mail (`delivery: "mail"`) its link went to the invitee's address only; else
 * (`delivery: "link"`, no mail server) the link is handed to the inviter, shown this once.
 */
export type InviteCreated =
  { invite: InviteView; accept_url: string; delivery: "link" } | { invite: InviteView; delivery: "mail" };

/**
 * What the invite page shows before the invitee accepts. Whether an account has the e-mail is not
 * shown: the inviter holds the link, and must not learn it from the page.
 */
export interface InvitePreview {
  email: string;
  role: Role;
  workspace: { name: string };
  invited_by: { name: string } | null;
  expires_at: string;
}

type InviteRow = {
  id: string;
  email: string;
  role: Role;
  createdAt: Date;
  expiresAt: Date;
  inviter: { id: string; name: string } | null;
};

export const inviteSelect = {
  id: true,
  email: true,
  role: true,
  createdAt: true,
  expiresAt: true,
  inviter: { select: { id: true, name: true } },
} as const;

// Invite ids are the API's own (inv_ and 96 random bits in hex, as newId makes the others).
export const newInviteId = () => `inv_${randomBytes(12).toString("hex")}`;

/** An invite as the API shows it: expired once its time has passed. */
export const inviteView = (clock: Clock, row: InviteRow): InviteView => ({
  id: row.id,
  email: row.email,
  role: row.role,
  invited_by: row.inviter,
  created_at: row.createdAt.toISOString(),
  expires_at: row.expiresAt.toISOString(),
  status: row.expiresAt.getTime() <= clock.now().getTime() ? "expired" : "pending",
});
