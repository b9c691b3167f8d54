import { z } from "zod";
import { pageQueryFields } from "../../http/cursor.js";
import { flowIdSchema } from "../../../core/contracts/flow-definition.js";
import { ROLES } from "../../../core/workspaces/permissions.js";
import { emailSchema } from "../../../core/users/users.schema.js";

const roleSchema = z.enum(ROLES);

export const userIdSchema = z.string().regex(/^usr_[0-9a-f]{24}$/, { message: "must be a user id (usr_…)" });

export const createWorkspaceSchema = z.object({ name: z.string().trim().min(1).max(200) });

// Fields that once created an account with a password its inviter chose: refused by name, so that
// an old client learns why instead of having them ignored.
const noLongerAccepted = (field: string) =>
  z
    .unknown()
    .refine((value) => value === undefined, {
      message: `is no longer accepted: the invitee chooses their own ${field} when accepting the invite`,
    })
    .optional()
    .meta({ description: "Refused (400): the invitee sets it when accepting" });

/**
 * Invites an e-mail to the workspace with a role: whether an account has the e-mail or not, the
 * answer is an invite and its one-time link, and nobody joins before accepting.
 */
export const addMemberSchema = z.object({
  email: emailSchema,
  role: roleSchema,
  name: noLongerAccepted("name"),
  password: noLongerAccepted("password"),
});

/** GET /api/workspace/members: in the order they joined. */
export const listMembersQuerySchema = z.object({ ...pageQueryFields() });

export const updateMemberSchema = z.object({ role: roleSchema });

const runTreeDepth = z.number().int().min(1).max(100);
const runTreeRuns = z.number().int().min(1).max(1_000_000);
const itemsCount = z.number().int().min(1).max(1_000_000);
const itemsBytes = z
  .number()
  .int()
  .min(1024)
  .max(32 * 1024 * 1024);

/** A workspace's settings as the API shows them. */
export const workspaceSettingsSchema = z
  .object({
    error_flow_id: flowIdSchema
      .nullable()
      .meta({ description: "Run when a run fails whose version names no error flow" }),
    run_tree_max_depth: runTreeDepth
      .nullable()
      .meta({ description: "How many starts deep a run tree may grow (null: the server's RUN_TREE_MAX_DEPTH)" }),
    run_tree_max_runs: runTreeRuns
      .nullable()
      .meta({ description: "How many runs one run tree may hold besides its root (null: RUN_TREE_MAX_RUNS)" }),
    run_tree_limits: z
      .object({ max_depth: z.number().int(), max_runs: z.number().int() })
      .meta({ description: "The limits in force: the workspace's, at most the server's" }),
    items_max_count: itemsCount
      .nullable()
      .meta({ description: "How many items one node may run per item (null: the server's ITEMS_MAX_COUNT)" }),
    items_max_bytes: itemsBytes
      .nullable()
      .meta({ description: "How many bytes one node's items may hold as JSON (null: ITEMS_MAX_BYTES)" }),
    items_limits: z
      .object({ max_count: z.number().int(), max_bytes: z.number().int() })
      .meta({ description: "The items limits in force: the workspace's, at most the server's" }),
  })
  .meta({ id: "WorkspaceSettings" });

/** A change of a workspace's settings: the fields given change, null clears one. */
export const updateWorkspaceSettingsSchema = z.strictObject({
  error_flow_id: flowIdSchema.nullable().optional(),
  run_tree_max_depth: runTreeDepth.nullable().optional(),
  run_tree_max_runs: runTreeRuns.nullable().optional(),
  items_max_count: itemsCount.nullable().optional(),
  items_max_bytes: itemsBytes.nullable().optional(),
});

export const memberViewSchema = z
  .object({
    user: z.object({ id: z.string(), email: z.string(), name: z.string() }),
    role: roleSchema,
    joined_at: z.string(),
  })
  .meta({ id: "Member" });

export const inviteIdSchema = z.string().regex(/^inv_[0-9a-f]{24}$/, { message: "must be an invite id (inv_…)" });

export const inviteViewSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    role: roleSchema,
    invited_by: z.object({ id: z.string(), name: z.string() }).nullable(),
    created_at: z.string(),
    expires_at: z.string(),
    status: z.enum(["pending", "expired"]),
  })
  .meta({ id: "Invite" });

/**
 * POST /api/workspace/members: the invite; its one-time link went by mail to the invitee's address
 * (`delivery: "mail"`), or, with no mail server, is handed to the inviter (`delivery: "link"`).
 */
export const inviteCreatedSchema = z
  .discriminatedUnion("delivery", [
    z.object({
      invite: inviteViewSchema,
      accept_url: z.string().meta({
        description: "The dashboard's path that accepts the invite, once (shown this once: only its hash is kept)",
      }),
      delivery: z.literal("link").meta({ description: "No mail server: the link is handed to the inviter to pass on" }),
    }),
    z.object({
      invite: inviteViewSchema,
      delivery: z.literal("mail").meta({ description: "Mailed to the invitee's address; the answer holds no link" }),
    }),
  ])
  .meta({ id: "InviteCreated", description: "An invite, and its one-time link when no mail server sent it" });

/** GET /api/workspaces's item: a workspace of the user, with the user's role in it. */
export const userWorkspaceSchema = z
  .object({
    workspaceId: z.string(),
    name: z.string(),
    role: roleSchema,
    current: z.boolean().meta({ description: "The session's workspace" }),
  })
  .meta({ id: "UserWorkspace" });

/** PUT /api/workspace/members/{userId} with the owner role: the member is offered it, and keeps their role until they accept. */
export const ownerOfferSchema = z
  .object({
    member: memberViewSchema,
    offer: inviteCreatedSchema,
  })
  .meta({ id: "OwnerOffer", description: "The owner role offered to a member: an invite they accept, or not" });

/**
 * POST /api/workspace/members/{userId}/password-reset: a one-time link that sets the member's
 * password, mailed to the member's address (`delivery: "mail"`), or, with no mail server, handed to
 * the caller (`delivery: "link"`).
 */
export const passwordResetIssuedSchema = z
  .discriminatedUnion("delivery", [
    z.object({
      email: z.string(),
      reset_url: z.string().meta({
        description: "The dashboard's path that sets the new password, once (shown this once: only its hash is kept)",
      }),
      expires_at: z.string(),
      delivery: z.literal("link").meta({ description: "No mail server: the link is handed to the issuer to pass on" }),
    }),
    z.object({
      email: z.string(),
      expires_at: z.string(),
      delivery: z.literal("mail").meta({ description: "Mailed to the member's address; the answer holds no link" }),
    }),
  ])
  .meta({ id: "PasswordResetIssued", description: "A password reset link, shown when no mail server sent it" });
