import { z } from "zod";
import { badRequest } from "./errors.js";

/** The query fields of every paged list: `limit` (with its default and ceiling) and the `cursor` of the page before. */
export function pageQueryFields({ defaultLimit = 50, maxLimit = 200 } = {}) {
  return {
    limit: z.coerce.number().int().min(1).max(maxLimit).default(defaultLimit),
    cursor: z.string().max(500).optional(),
  };
}

/** Opaque keyset cursors: base64url JSON of the sort key of the last item of a page. */
export function encodeCursor(key: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

/** The key a cursor of this API holds (undefined without a cursor: the first page); 400 when it holds none. */
export function decodeCursor<K extends Record<string, string | number>>(
  cursor: string | undefined,
  isKey: (value: unknown) => value is K,
): K | undefined {
  if (!cursor) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (isKey(value)) return value;
  } catch {
    // fall through
  }
  throw badRequest("Invalid cursor", { details: [{ path: "cursor", message: "is not a cursor this API returned" }] });
}

/**
 * A page of a keyset query that asked for `limit + 1` rows: the first `limit` rows, and the cursor
 * after the last of them when another row came back (null on the last page).
 */
export function keysetPage<T>(
  rows: readonly T[],
  limit: number,
  keyOf: (last: T) => Record<string, string | number>,
): { page: T[]; next_cursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { page, next_cursor: rows.length > limit && last !== undefined ? encodeCursor(keyOf(last)) : null };
}

/** The cursor of a list ordered by a time and an id: `{ [timeKey]: ISO time, id }`. */
export function isTimeIdCursor<K extends string>(timeKey: K) {
  return (value: unknown): value is Record<K, string> & { id: string } => {
    if (typeof value !== "object" || value === null) return false;
    const time: unknown = (value as Record<string, unknown>)[timeKey];
    return (
      typeof time === "string" && !Number.isNaN(Date.parse(time)) && typeof (value as { id?: unknown }).id === "string"
    );
  };
}
