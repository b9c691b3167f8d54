// Encryption keys of secrets at rest (SVC_ENCRYPTION_KEY): `k2:<key>,k1:<key>`, each key 32 bytes
// as base64 or 64 hex digits. The first key seals new values; every key opens what it sealed, so a
// new key can be put in front while rows sealed under the old one are re-encrypted.
import { createSecretBox, parseSecretKey, type SecretBox } from "./secret-box.js";

export interface RingKey {
  id: string;
  key: Buffer;
}

/** A value sealed under one key of the ring, with that key's id. */
export interface SealedValue {
  keyId: string;
  ciphertext: string;
}

export interface KeyRing {
  /** The id of the key new values are sealed under. */
  readonly currentKeyId: string;
  readonly keyIds: readonly string[];
  seal(plaintext: string, context: string): SealedValue;
  /** Throws UnknownKeyError for a key id not in the ring; another error for an altered value or context. */
  open(sealed: SealedValue, context: string): string;
}

export class UnknownKeyError extends Error {
  override name = "UnknownKeyError";
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** The keys of an SVC_ENCRYPTION_KEY value, or a message saying what is wrong with it (never the key). */
export function parseKeyRing(text: string): RingKey[] | string {
  const entries = text
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) return "expected <id>:<key>[,<id>:<key>…]";
  const keys: RingKey[] = [];
  for (const [index, entry] of entries.entries()) {
    const colon = entry.indexOf(":");
    const id = colon > 0 ? entry.slice(0, colon) : "";
    if (!KEY_ID.test(id)) {
      return `entry ${index + 1}: expected <id>:<key>, the id made of letters, digits, _ or - (at most 32)`;
    }
    const key = parseSecretKey(entry.slice(colon + 1));
    if (!key) return `key "${id}": expected 32 bytes as base64 or 64 hex digits (openssl rand -base64 32)`;
    if (keys.some((other) => other.id === id)) return `key id "${id}" appears twice`;
    keys.push({ id, key });
  }
  return keys;
}

export function createKeyRing(keys: readonly RingKey[]): KeyRing {
  if (keys.length === 0) throw new Error("A key ring needs at least one key");
  const boxes = new Map<string, SecretBox>(keys.map(({ id, key }) => [id, createSecretBox(key)]));
  const currentKeyId = keys[0]!.id;
  return {
    currentKeyId,
    keyIds: keys.map((k) => k.id),
    seal(plaintext, context) {
      return { keyId: currentKeyId, ciphertext: boxes.get(currentKeyId)!.seal(plaintext, context) };
    },
    open({ keyId, ciphertext }, context) {
      const box = boxes.get(keyId);
      if (!box) throw new UnknownKeyError(`The value is sealed under key "${keyId}", which SVC_ENCRYPTION_KEY lacks`);
      return box.open(ciphertext, context);
    },
  };
}

/** A fresh key ring entry, as `npm start` writes it when none is configured. */
export function newKeyRingEntry(id: string, randomKey: Buffer): string {
  if (!KEY_ID.test(id) || randomKey.length !== 32) throw new Error("A key ring entry needs an id and 32 random bytes");
  return `${id}:${randomKey.toString("base64")}`;
}
