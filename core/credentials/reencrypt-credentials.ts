import type { PrismaClient } from "../../lib/db.js";
import type { KeyRing } from "../../lib/crypto/key-ring.js";
import { CredentialsDisabled } from "../errors.js";
import { openSecret, sealSecret, type CredentialKeys } from "./credential-seal.js";
import type { CredentialRow } from "./credential-views.js";

type Unreadable = Array<{ id: string; reason: string }>;

/**
 * Seals every value stored under an older key (or AI_KEYS_SECRET) again under the current key,
 * a batch at a time; a value that does not open is reported by id and left as it is.
 */
export async function reencryptCredentials(
  { prisma, keys }: { prisma: PrismaClient; keys: CredentialKeys },
  options: { batchSize?: number } = {},
) {
  const ring = keys.ring;
  if (!ring) throw new CredentialsDisabled();
  const batchSize = options.batchSize ?? 100;
  let reencrypted = 0;
  const unreadable: Unreadable = [];
  let afterId = "";
  for (;;) {
    const rows = await prisma.credential.findMany({
      where: { keyId: { not: ring.currentKeyId }, id: { gt: afterId } },
      orderBy: { id: "asc" },
      take: batchSize,
    });
    if (rows.length === 0) break;
    afterId = rows.at(-1)!.id;
    reencrypted += await reencryptBatch(prisma, { ...keys, ring }, rows, unreadable);
  }
  const remaining = await prisma.credential.count({ where: { keyId: { not: ring.currentKeyId } } });
  return { currentKeyId: ring.currentKeyId, reencrypted, unreadable, remaining };
}

/** Seals each row again under the current key; how many were; those that do not open go to `unreadable`. */
async function reencryptBatch(
  prisma: PrismaClient,
  keys: CredentialKeys & { ring: KeyRing },
  rows: CredentialRow[],
  unreadable: Unreadable,
): Promise<number> {
  let reencrypted = 0;
  for (const row of rows) {
    try {
      const sealed = sealSecret(keys, row, openSecret(keys, row));
      // Only if nobody changed it meanwhile (a rotation seals under the current key anyway).
      const { count } = await prisma.credential.updateMany({
        where: { id: row.id, keyId: row.keyId, ciphertext: row.ciphertext },
        data: sealed,
      });
      reencrypted += count;
    } catch (error) {
      unreadable.push({ id: row.id, reason: (error as Error).message });
    }
  }
  return reencrypted;
}
