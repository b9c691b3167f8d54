// The text of a workspace API token: `svc_pat_`, 40 random base62 characters (238 bits), and a
// CRC-32 of them in 6 base62 characters. The prefix lets secret scanners and people recognise one
// in a log, a commit or a paste; the checksum lets a scanner (and the API, before any query) tell
// a token from a string that only looks like one. Only its SHA-256 is stored.
import { createHash, randomInt } from "node:crypto";
import { crc32 } from "node:zlib";

export const API_TOKEN_PREFIX = "svc_pat_";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_CHARS = 40;
const CHECK_CHARS = 6;
const HINT_CHARS = 4;

/** Every token, in a pattern a scanner can use: prefix, random part, checksum. */
export const API_TOKEN_PATTERN = new RegExp(`^${API_TOKEN_PREFIX}[0-9A-Za-z]{${RANDOM_CHARS + CHECK_CHARS}}$`);

function base62(value: number, width: number): string {
  let text = "";
  for (let rest = value; rest > 0; rest = Math.floor(rest / 62)) text = BASE62[rest % 62]! + text;
  return text.padStart(width, "0");
}

const checksum = (random: string) => base62(crc32(random), CHECK_CHARS);

/** A new token, its hash (what is stored) and its hint (the list shows it: the prefix and 4 characters). */
export function newApiToken(): { token: string; hash: string; hint: string } {
  let random = "";
  for (let i = 0; i < RANDOM_CHARS; i++) random += BASE62[randomInt(62)];
  const token = `${API_TOKEN_PREFIX}${random}${checksum(random)}`;
  return { token, hash: hashApiToken(token), hint: `${API_TOKEN_PREFIX}${random.slice(0, HINT_CHARS)}…` };
}

/** Whether `value` has the shape and checksum of a token (no query is made for anything else). */
export function isWellFormedApiToken(value: string): boolean {
  if (!API_TOKEN_PATTERN.test(value)) return false;
  const body = value.slice(API_TOKEN_PREFIX.length);
  return checksum(body.slice(0, RANDOM_CHARS)) === body.slice(RANDOM_CHARS);
}

export function hashApiToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
