import { pbkdf2, randomBytes, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";

const pbkdf2Async = promisify(pbkdf2);

/** OWASP's current figure for PBKDF2-HMAC-SHA256; the spec's legacy hashes use 100,000. */
export const DEFAULT_PBKDF2_ITERATIONS = 600_000;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

// Stored form: pbkdf2_sha256$<iterations>$<salt, base64>$<derived key, base64>. The parameters
// travel with each hash, so the iteration count can rise without invalidating old hashes.
const HASH_FORMAT = /^pbkdf2_sha256\$(\d{1,9})\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/;

/** Hashes on libuv's thread pool, never on the event loop. */
export async function hashPassword(password: string, iterations = DEFAULT_PBKDF2_ITERATIONS): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await pbkdf2Async(password, salt, iterations, KEY_LENGTH, "sha256");
  return `pbkdf2_sha256$${iterations}$${salt.toString("base64")}$${key.toString("base64")}`;
}

export interface PasswordCheck {
  valid: boolean;
  /** True when the hash was made with fewer iterations than wanted: re-hash after a valid login. */
  needsRehash: boolean;
}

export async function verifyPassword(
  password: string,
  stored: string,
  wantedIterations = DEFAULT_PBKDF2_ITERATIONS,
): Promise<PasswordCheck> {
  const match = HASH_FORMAT.exec(stored);
  if (!match) return { valid: false, needsRehash: false };
  const iterations = Number(match[1]);
  const salt = Buffer.from(match[2]!, "base64");
  const expected = Buffer.from(match[3]!, "base64");
  const actual = await pbkdf2Async(password, salt, iterations, expected.length, "sha256");
  const valid = actual.length === expected.length && timingSafeEqual(actual, expected);
  return { valid, needsRehash: valid && iterations < wantedIterations };
}
