// The key that seals credentials on a machine run by `npm start`: SVC_ENCRYPTION_KEY when set,
// else the key ring kept in the data directory, made on the first start (readable by its owner
// only). Command-line tools (credentials:reencrypt) find it there too.
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { newKeyRingEntry } from "../../lib/crypto/key-ring.js";
import { dataDir } from "./paths.js";

export const encryptionKeyFile = () => dataDir("encryption-key");

/**
 * SVC_ENCRYPTION_KEY as `env` has it, else the data directory's key ring; with `create`, a new
 * key (`k1:<32 random bytes, base64>`, mode 0600) when there is none yet.
 */
export function localEncryptionKey(
  env: NodeJS.ProcessEnv,
  options: { create: boolean },
): { value: string; source: "environment" | "file" | "created" } | undefined {
  if (env.SVC_ENCRYPTION_KEY) return { value: env.SVC_ENCRYPTION_KEY, source: "environment" };
  const file = encryptionKeyFile();
  const read = () => {
    // Copied or unpacked with looser permissions: only the owner reads a key.
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    return { value: readFileSync(file, "utf8").trim(), source: "file" as const };
  };
  if (existsSync(file)) return read();
  if (!options.create) return undefined;
  // The directory as npm start makes it (the embedded PostgreSQL's OS user traverses it); the key
  // file itself is the owner's only.
  mkdirSync(dataDir(), { recursive: true });
  const value = newKeyRingEntry("k1", randomBytes(32));
  try {
    // wx: of two starts at once, one writes the key and the other reads it.
    writeFileSync(file, `${value}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return read();
    throw error;
  }
  return { value, source: "created" };
}
