import { describe, expect, it } from "vitest";
import { findUnstorableText } from "./storable-text.js";

describe("findUnstorableText", () => {
  it("names the first NUL character or unpaired surrogate, in values and keys", () => {
    expect(findUnstorableText({ input: { note: "a\u0000b" } })).toBe("body.input.note");
    expect(findUnstorableText({ items: ["ok", "\ud83d"] })).toBe("body.items[1]");
    expect(findUnstorableText({ items: ["\ude00 alone"] })).toBe("body.items[0]");
    expect(findUnstorableText({ ["k\u0000"]: 1 })).toBe("body (a key)");
  });

  it("accepts ordinary text, emoji and other values, and deep nesting without recursion", () => {
    expect(findUnstorableText({ a: "héllo 😀", b: [1, true, null, { c: "\u0001" }] })).toBeUndefined();
    let deep: unknown = "fine";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findUnstorableText(deep)).toBeUndefined();
  });
});
