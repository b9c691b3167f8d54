import { z } from "zod";
import { TOKEN_SCOPES } from "../../../core/tokens/token-scopes.js";
import { pageQueryFields } from "../../http/cursor.js";

export const tokenIdSchema = z.string().regex(/^tok_[0-9a-f]{24}$/, { message: "must be an API token id (tok_…)" });

/** The furthest expiry a token may be given: five years. */
const MAX_LIFETIME_MS = 5 * 366 * 86_400_000;

export const createTokenSchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  scopes: z
    .array(z.enum(TOKEN_SCOPES))
    .min(1)
    .refine((list) => new Set(list).size === list.length, { message: "must not repeat a scope" }),
  expires_at: z.iso
    .datetime({ offset: true })
    .nullable()
    .default(null)
    .refine((value) => value === null || Date.parse(value) > Date.now(), { message: "must be in the future" })
    .refine((value) => value === null || Date.parse(value) <= Date.now() + MAX_LIFETIME_MS, {
      message: "must be within five years",
    })
    .meta({ description: "When the token stops working (ISO 8601); null or absent: never" }),
});

export const listTokensQuerySchema = z.object({ ...pageQueryFields({ defaultLimit: 100 }) });

/** A token as the API lists it: never the token itself. */
export const tokenViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    hint: z.string().meta({ description: "The token's first characters (svc_pat_Ab3d…), to tell it apart" }),
    scopes: z.array(z.enum(TOKEN_SCOPES)),
    status: z.enum(["active", "expired", "revoked", "creator_left"]),
    created_by: z.string().nullable(),
    created_at: z.string(),
    expires_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
    last_used_at: z.string().nullable(),
    last_used_from: z.string().nullable().meta({ description: "The client address of its last use" }),
  })
  .meta({ id: "ApiToken" });

export const tokenCreatedSchema = tokenViewSchema
  .extend({
    token: z.string().meta({ description: "The token (svc_pat_…): shown this once, never again" }),
  })
  .meta({ id: "ApiTokenCreated" });

export const tokensPageSchema = z.object({ items: z.array(tokenViewSchema), next_cursor: z.string().nullable() });
