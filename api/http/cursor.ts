import { badRequest } from "./errors.js";

/** Opaque keyset cursors: base64url JSON of the sort key of the last item of a page. */
export function encodeCursor(key: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

export function decodeCursor<K extends Record<string, string | number>>(
  cursor: string,
  isKey: (value: unknown) => value is K,
): K {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (isKey(value)) return value;
  } catch {
    // fall through
  }
  throw badRequest("Invalid cursor", { details: [{ path: "cursor", message: "is not a cursor this API returned" }] });
}
