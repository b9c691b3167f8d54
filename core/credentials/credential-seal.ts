// How a credential's secret is stored: sealed (AES-256-GCM under SVC_ENCRYPTION_KEY's current key,
// its id kept with the value) and bound to its workspace, id, type and shown fields, so that a
// value copied to another row, or a row whose token_url was changed in the database, does not open.
import { canonicalJson } from "../../lib/canonical-json.js";
import type { Config } from "../../lib/config.js";
import { createKeyRing, type KeyRing } from "../../lib/crypto/key-ring.js";
import { createSecretBox, parseSecretKey, type SecretBox } from "../../lib/crypto/secret-box.js";
import { CredentialsDisabled, CredentialUnreadable } from "../errors.js";
import type { CredentialRow } from "./credential-views.js";

/** key_id of a provider key stored before credentials existed: sealed with AI_KEYS_SECRET. */
export const LEGACY_AI_KEY_ID = "AI_KEYS_SECRET";

/** The keys credentials are sealed and opened with; either may be absent (not configured). */
export interface CredentialKeys {
  ring: KeyRing | undefined;
  legacyAiKeys: SecretBox | undefined;
}

export function credentialKeys(config: Pick<Config, "SVC_ENCRYPTION_KEY" | "AI_KEYS_SECRET">): CredentialKeys {
  return {
    ring: config.SVC_ENCRYPTION_KEY ? createKeyRing(config.SVC_ENCRYPTION_KEY) : undefined,
    legacyAiKeys: config.AI_KEYS_SECRET ? createSecretBox(parseSecretKey(config.AI_KEYS_SECRET)!) : undefined,
  };
}

/** What a sealed value is bound to. */
export type BoundRow = Pick<CredentialRow, "workspaceId" | "id" | "type"> & { fields: unknown };

const contextOf = (row: BoundRow) =>
  ["credential", row.workspaceId, row.id, row.type, canonicalJson(row.fields)].join("\u0000");

/** The secret sealed under the current key, bound to its row; CredentialsDisabled without a key. */
export function sealSecret({ ring }: Pick<CredentialKeys, "ring">, row: BoundRow, secret: Record<string, unknown>) {
  if (!ring) throw new CredentialsDisabled();
  return ring.seal(JSON.stringify(secret), contextOf(row));
}

/** The row's secret opened; CredentialUnreadable says why it does not open, never what it holds. */
export function openSecret({ ring, legacyAiKeys }: CredentialKeys, row: CredentialRow): Record<string, unknown> {
  try {
    if (row.keyId === LEGACY_AI_KEY_ID) {
      if (!legacyAiKeys) throw new Error("it was stored with AI_KEYS_SECRET, which is not set");
      const { provider } = row.fields as { provider: string };
      return { api_key: legacyAiKeys.open(row.ciphertext, `${row.workspaceId}:${provider}`) };
    }
    if (!ring) throw new Error("SVC_ENCRYPTION_KEY is not set");
    return JSON.parse(ring.open(row, contextOf(row))) as Record<string, unknown>;
  } catch (error) {
    // Never the value: only why it does not open (a missing key, an altered value).
    const reason =
      error instanceof Error && /not set|lacks/.test(error.message)
        ? error.message
        : "it does not decrypt with its key (altered, or moved from another row)";
    throw new CredentialUnreadable(reason);
  }
}
