import { describe, expect, it } from "vitest";
import { peekValue } from "./format";

describe("a value's peek", () => {
  it("shows strings as they are and other values as compact JSON", () => {
    expect(peekValue("hello")).toBe("hello");
    expect(peekValue({ ok: true, n: 2 })).toBe('{"ok":true,"n":2}');
    expect(peekValue(null)).toBe("");
  });

  it("cuts long values with an ellipsis at the length asked", () => {
    const peek = peekValue({ text: "x".repeat(100) }, 20);
    expect(peek).toHaveLength(20);
    expect(peek.endsWith("…")).toBe(true);
  });

  it("tells an output stored apart by its size, or shows its preview", () => {
    expect(peekValue({ truncated: true, bytes: 400000 })).toBe("(400000 bytes, stored apart)");
    expect(peekValue({ truncated: true, bytes: 9, preview: '{"a":1}' })).toBe('{"a":1}');
  });
});
