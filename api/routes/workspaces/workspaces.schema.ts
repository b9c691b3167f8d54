import { z } from "zod";
import { pageQueryFields } from "../../http/cursor.js";
import { flowIdSchema } from "../../../core/flows/definition.js";
import { ROLES } from "../../../core/workspaces/permissions.js";
import { emailSchema, passwordSchema } from "../../../core/users/users.schema.js";

export const roleSchema = z.enum(ROLES);

export const userIdSchema = z.string().regex(/^usr_[0-9a-f]{24}$/, { message: "must be a user id (usr_…)" });

export const createWorkspaceSchema = z.object({ name: z.string().trim().min(1).max(200) });

/**
 * Adds a user to the workspace. An existing account is added by e-mail; for a new one, give
 * `name` and an initial `password` too (there is no e-mail invitation flow).
 */
export const addMemberSchema = z.object({
  email: emailSchema,
  role: roleSchema,
  name: z.string().trim().min(1).max(200).optional(),
  password: passwordSchema.optional(),
});

/** GET /api/workspace/members: in the order they joined. */
export const listMembersQuerySchema = z.object({ ...pageQueryFields() });

export const updateMemberSchema = z.object({ role: roleSchema });

/** A workspace's settings as the API shows them. */
export const workspaceSettingsSchema = z.object({
  error_flow_id: flowIdSchema
    .nullable()
    .meta({ description: "Run when a run fails whose version names no error flow" }),
});

/** A change of a workspace's settings: the fields given change, null clears one. */
export const updateWorkspaceSettingsSchema = z.strictObject({
  error_flow_id: flowIdSchema.nullable().optional(),
});
