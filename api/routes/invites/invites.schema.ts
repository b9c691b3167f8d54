import { z } from "zod";
import { ROLES } from "../../../core/workspaces/permissions.js";

// Any string up to a token's length: a malformed token is answered as an unknown one (404).
export const inviteTokenParams = z.object({ token: z.string().max(100) });

/**
 * Accepting an invite. Logged in as the invited account: nothing. Otherwise the account's password,
 * checked as a login is; or, for a new account, its `name` and password (8 to 256 characters).
 * With a name, an e-mail an account has still needs that account's password.
 */
export const acceptInviteSchema = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  password: z.string().min(1).max(1024).optional(),
});

export const invitePreviewSchema = z
  .object({
    email: z.string(),
    role: z.enum(ROLES),
    workspace: z.object({ name: z.string() }),
    invited_by: z.object({ name: z.string() }).nullable(),
    expires_at: z.string(),
  })
  .meta({ id: "InvitePreview", description: "What the invite page shows" });
