import { randomBytes } from "node:crypto";

/** Resource id prefixes of the interface (usr_, ws_, wf_, run_ ...). */
export type IdPrefix = "usr" | "ws" | "ses" | "wf" | "run" | "evt" | "blob" | "row" | "whe" | "whd" | "agr" | "alog";

/** A new id: the type prefix and 96 random bits in hex, e.g. `usr_3f9c0a...`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(12).toString("hex")}`;
}
