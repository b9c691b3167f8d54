import { z } from "zod";
import { ROLES } from "../../../core/workspaces/permissions.js";

// Any string up to a token's length: a malformed token is answered as an unknown one (404).
export const inviteTokenParams = z.object({ token: z.string().max(100) });

/**
 * Accepting an invite. For an e-mail no account has: the new account's name and password (8 to 256
 * characters). For an e-mail an account has: that account's password, checked as a login is.
 */
export const acceptInviteSchema = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  password: z.string().min(1).max(1024),
});

export const invitePreviewSchema = z
  .object({
    email: z.string(),
    role: z.enum(ROLES),
    workspace: z.object({ name: z.string() }),
    invited_by: z.object({ name: z.string() }).nullable(),
    expires_at: z.string(),
    account_exists: z
      .boolean()
      .meta({ description: "An account has the e-mail: accepting needs its password instead of a new account's" }),
  })
  .meta({ id: "InvitePreview", description: "What the invite page shows" });
