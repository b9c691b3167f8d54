import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor, isTimeIdCursor, keysetPage, pageQueryFields } from "./cursor.js";
import { z } from "zod";

describe("keyset cursors", () => {
  it("cuts a page of limit + 1 rows and points after its last row, and ends on a short page", () => {
    const key = (row: { n: number }) => ({ n: row.n });
    const more = keysetPage([{ n: 1 }, { n: 2 }, { n: 3 }], 2, key);
    expect(more.page).toEqual([{ n: 1 }, { n: 2 }]);
    expect(decodeCursor(more.next_cursor!, (v): v is { n: number } => typeof v === "object")).toEqual({ n: 2 });
    expect(keysetPage([{ n: 1 }, { n: 2 }], 2, key)).toEqual({ page: [{ n: 1 }, { n: 2 }], next_cursor: null });
    expect(keysetPage([], 2, key)).toEqual({ page: [], next_cursor: null });
  });

  it("accepts a time-and-id cursor only with a parseable time under its own key", () => {
    const isRun = isTimeIdCursor("s");
    expect(isRun({ s: "2026-01-01T00:00:00.000Z", id: "run_1" })).toBe(true);
    expect(isRun({ t: "2026-01-01T00:00:00.000Z", id: "run_1" })).toBe(false);
    expect(isRun({ s: "yesterday", id: "run_1" })).toBe(false);
    expect(isRun({ s: "2026-01-01T00:00:00.000Z", id: 1 })).toBe(false);
    expect(() => decodeCursor(encodeCursor({ t: "2026-01-01T00:00:00.000Z", id: "x" }), isRun)).toThrow(
      /Invalid cursor/,
    );
    expect(() => decodeCursor("%%%", isRun)).toThrow(/Invalid cursor/);
    // No cursor (absent or empty): the first page.
    expect([decodeCursor(undefined, isRun), decodeCursor("", isRun)]).toEqual([undefined, undefined]);
  });

  it("reads limit with its default and ceiling", () => {
    const query = z.object(pageQueryFields({ defaultLimit: 100, maxLimit: 500 }));
    expect(query.parse({})).toEqual({ limit: 100 });
    expect(query.parse({ limit: "500", cursor: "c" })).toEqual({ limit: 500, cursor: "c" });
    expect(query.safeParse({ limit: "501" }).success).toBe(false);
    expect(query.safeParse({ limit: "0" }).success).toBe(false);
  });
});
