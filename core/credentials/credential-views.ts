import type { PrismaClient } from "../../lib/db.js";
import type { CredentialType } from "../contracts/credential-types.js";

export type CredentialRow = Awaited<ReturnType<PrismaClient["credential"]["findFirstOrThrow"]>>;

/** What anyone of the workspace may see of a credential: never a secret. */
export function credentialView(row: CredentialRow) {
  return {
    id: row.id,
    name: row.name,
    type: row.type as CredentialType,
    fields: row.fields as Record<string, unknown>,
    hint: row.last4 === null ? null : `…${row.last4}`,
    default_for: row.defaultFor,
    created_at: row.createdAt.toISOString(),
    created_by: row.createdBy,
    updated_at: row.updatedAt.toISOString(),
    updated_by: row.updatedBy,
  };
}

export type CredentialView = ReturnType<typeof credentialView>;
