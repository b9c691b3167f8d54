import { z } from "zod";
import { emailSchema, passwordSchema } from "../../../core/users/users.schema.js";

// Login accepts any password length an account could have, and no more: longer strings are
// refused (400) before any hashing, so they cannot be used to burn CPU.
const MAX_LOGIN_PASSWORD_LENGTH = 1024;

const workspaceIdSchema = z.string().regex(/^ws_[0-9a-f]{24}$/, { message: "must be a workspace id (ws_…)" });

export const loginSchema = z.object({
  email: z.string().max(254).pipe(emailSchema),
  password: z.string().min(1).max(MAX_LOGIN_PASSWORD_LENGTH),
  /** Optional: the workspace to open; defaults to the user's first workspace. */
  workspaceId: workspaceIdSchema.optional(),
});

export const switchWorkspaceSchema = z.object({ workspaceId: workspaceIdSchema });

export const changePasswordSchema = z.object({
  current_password: z.string().min(1).max(MAX_LOGIN_PASSWORD_LENGTH),
  new_password: passwordSchema,
});

// Any string up to a token's length: a malformed token is answered as an unknown one (404).
export const passwordResetTokenParams = z.object({ token: z.string().max(100) });

/** Setting a password through a reset link. */
export const completePasswordResetSchema = z.object({ password: passwordSchema });

export const passwordResetPreviewSchema = z
  .object({ email: z.string(), expires_at: z.string() })
  .meta({ id: "PasswordResetPreview", description: "What the password reset page shows" });
