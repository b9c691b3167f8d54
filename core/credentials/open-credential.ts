import type { PrismaClient } from "../../lib/db.js";
import { findCredential } from "./credential-reads.js";
import { openSecret, type CredentialKeys } from "./credential-seal.js";
import { joinCredential, type CredentialType } from "../contracts/credential-types.js";

/** A credential with its secret, for the worker to apply to a call; never for an answer or a log. */
export interface OpenedCredential {
  id: string;
  type: CredentialType;
  data: Record<string, unknown>;
  /** Changes whenever the credential does (a rotation): caches of what it yields key on it. */
  revision: string;
}

/** The credential with its secret, for the worker to apply to a call (CredentialNotFound once deleted). */
export async function openCredential(
  { prisma, keys }: { prisma: PrismaClient; keys: CredentialKeys },
  workspaceId: string,
  id: string,
): Promise<OpenedCredential> {
  const row = await findCredential(prisma, workspaceId, id);
  return {
    id: row.id,
    type: row.type as CredentialType,
    data: joinCredential(row.fields as Record<string, unknown>, openSecret(keys, row)),
    revision: `${row.updatedAt.getTime()}:${row.keyId}:${row.ciphertext.slice(-16)}`,
  };
}
