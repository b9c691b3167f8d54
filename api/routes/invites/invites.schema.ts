import { z } from "zod";
import { passwordSchema } from "../../../core/users/users.schema.js";
import { ROLES } from "../../../core/workspaces/permissions.js";

// Any string up to a token's length: a malformed token is answered as an unknown one (404).
export const inviteTokenParams = z.object({ token: z.string().max(100) });

/**
 * Accepting an invite. Logged in as the invited account: nothing. Otherwise the account's password,
 * checked as a login is; or, for a new account, its `name` and password (8 to 256 characters).
 * With a name, an e-mail an account has still needs that account's password. The body is checked
 * whole here, before any account is looked up: a name with a password no new account could have
 * answers 400 alike whether an account has the e-mail or not (issue 47).
 */
export const acceptInviteSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    password: z.string().min(1).max(1024).optional(),
  })
  .superRefine((body, ctx) => {
    if (body.name === undefined) return;
    if (body.password === undefined) {
      ctx.addIssue({ code: "custom", path: ["password"], message: "a new account needs a password" });
      return;
    }
    const password = passwordSchema.safeParse(body.password);
    if (!password.success)
      ctx.addIssue({ code: "custom", path: ["password"], message: password.error.issues[0]!.message });
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
