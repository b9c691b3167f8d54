import { createHash, randomBytes } from "node:crypto";

/** Resource id prefixes of the interface (usr_, ws_, wf_, run_ ...). */
export type IdPrefix =
  | "usr"
  | "aud"
  | "ws"
  | "ses"
  | "wf"
  | "run"
  | "dbs"
  | "op"
  | "evt"
  | "blob"
  | "row"
  | "whe"
  | "whd"
  | "agr"
  | "alog"
  | "cred"
  | "wait"
  | "tok"
  | "use"
  | "bud"
  | "htl"
  | "aud";

/** A new id: the type prefix and 96 random bits in hex, e.g. `usr_3f9c0a...`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(12).toString("hex")}`;
}

/**
 * An id derived from what it stands for, so that a retried attempt or a repeated call makes the
 * same one: the prefix and the first `hexChars` of the SHA-256 of the parts joined by NUL. Ids in
 * the database and in running workflows were made this way: the recipe must not change.
 */
export function derivedId(prefix: IdPrefix, parts: ReadonlyArray<string | number>, hexChars = 24): string {
  return `${prefix}_${createHash("sha256").update(parts.join("\u0000")).digest("hex").slice(0, hexChars)}`;
}
