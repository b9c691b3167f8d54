import { z } from "zod";
import {
  CREDENTIAL_TYPES,
  credentialDataSchemas,
  type CredentialType,
} from "../../../core/contracts/credential-types.js";

export { credentialIdSchema } from "../../../core/contracts/credential-types.js";
import { pageQueryFields } from "../../http/cursor.js";

const name = z.string().trim().min(1).max(200);

const variant = <T extends CredentialType>(type: T) =>
  z.strictObject({ name, type: z.literal(type), data: credentialDataSchemas[type] });

/** A new credential: its name, its type and the type's values (secret ones included, never shown again). */
export const createCredentialSchema = z.discriminatedUnion("type", [
  variant("bearer"),
  variant("basic"),
  variant("api_key"),
  variant("headers"),
  variant("oauth2_client_credentials"),
  variant("ai_provider"),
]);

/** A rename, a rotation, or both. The type never changes. */
export const updateCredentialSchema = z
  .strictObject({
    name: name.optional(),
    data: z.record(z.string(), z.unknown()).optional().meta({
      description:
        "Values to replace, of the credential's type (as in create); the others keep theirs. The whole is checked again.",
    }),
  })
  .refine((body) => body.name !== undefined || body.data !== undefined, { message: "give a name or data" });

export const listCredentialsQuerySchema = z.object({
  type: z
    .string()
    .transform((value) => value.split(",").map((part) => part.trim()))
    .pipe(z.array(z.enum(CREDENTIAL_TYPES)))
    .optional()
    .meta({ description: "Only these types, comma separated (bearer,basic)" }),
  ...pageQueryFields(),
});

export const deleteCredentialQuerySchema = z.object({
  force: z.stringbool().default(false).meta({ description: "Delete even while flows use it" }),
});

/** What anyone of the workspace may see of a credential: never a secret value. */
export const credentialViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(CREDENTIAL_TYPES),
    fields: z.record(z.string(), z.unknown()).meta({ description: "The type's values that are not secret" }),
    hint: z.string().nullable().meta({ description: "The secret's last four characters (…abcd), when it has one" }),
    default_for: z.string().nullable(),
    created_at: z.string(),
    created_by: z.string().nullable(),
    updated_at: z.string(),
    updated_by: z.string().nullable(),
  })
  .meta({ id: "Credential" });
