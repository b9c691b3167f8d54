import { describe, expect, it } from "vitest";
import { afterTimeAndId } from "./keyset.js";

describe("keyset paging", () => {
  it("asks for later rows oldest first and earlier rows newest first, ties broken by id", () => {
    const time = new Date("2026-01-01T00:00:00.000Z");
    const after = { time, id: "x" };
    expect(afterTimeAndId(undefined, { time: "createdAt", id: "id" }, "asc")).toEqual({});
    expect(afterTimeAndId(after, { time: "createdAt", id: "userId" }, "asc")).toEqual({
      OR: [{ createdAt: { gt: time } }, { createdAt: time, userId: { gt: "x" } }],
    });
    expect(afterTimeAndId(after, { time: "startedAt", id: "id" }, "desc")).toEqual({
      OR: [{ startedAt: { lt: time } }, { startedAt: time, id: { lt: "x" } }],
    });
  });
});
