// Secrets at rest (workspaces' provider keys): AES-256-GCM with a key from configuration, a
// fresh 96-bit nonce per value, and associated data binding each ciphertext to its owner, so a
// value copied to another row does not decrypt.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = "v1";

export interface SecretBox {
  seal(plaintext: string, owner: string): string;
  /** Throws when the value was altered, moved to another owner or sealed with another key. */
  open(sealed: string, owner: string): string;
}

/** `secret`: 32 bytes as 64 hex digits or base64. */
export function parseSecretKey(secret: string): Buffer | undefined {
  const key = /^[0-9a-f]{64}$/i.test(secret) ? Buffer.from(secret, "hex") : Buffer.from(secret, "base64");
  return key.length === 32 ? key : undefined;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error("A secret box needs a 32-byte key");
  return {
    seal(plaintext, owner) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, nonce);
      cipher.setAAD(Buffer.from(owner, "utf8"));
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return `${VERSION}:${Buffer.concat([nonce, cipher.getAuthTag(), body]).toString("base64")}`;
    },
    open(sealed, owner) {
      const [version, data] = sealed.split(":");
      if (version !== VERSION || !data) throw new Error("Unknown sealed-value format");
      const raw = Buffer.from(data, "base64");
      const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(owner, "utf8"));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
    },
  };
}
