import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSecretBox, parseSecretKey } from "./secret-box.js";

describe("secret box", () => {
  const box = createSecretBox(randomBytes(32));

  it("round-trips, never shows the plaintext, and uses a fresh nonce each time", () => {
    const a = box.seal("sk-live-123456", "ws_1:openai");
    const b = box.seal("sk-live-123456", "ws_1:openai");
    expect(a).not.toContain("sk-live");
    expect(a).not.toBe(b);
    expect(box.open(a, "ws_1:openai")).toBe("sk-live-123456");
  });

  it("refuses altered values, other owners and other keys", () => {
    const sealed = box.seal("sk-live-123456", "ws_1:openai");
    expect(() => box.open(sealed, "ws_2:openai")).toThrow();
    const raw = Buffer.from(sealed.slice(3), "base64");
    raw[raw.length - 1]! ^= 1;
    expect(() => box.open(`v1:${raw.toString("base64")}`, "ws_1:openai")).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed, "ws_1:openai")).toThrow();
  });

  it("accepts 32-byte keys as hex or base64 only", () => {
    expect(parseSecretKey("ab".repeat(32))).toHaveLength(32);
    expect(parseSecretKey(randomBytes(32).toString("base64"))).toHaveLength(32);
    expect(parseSecretKey("short")).toBeUndefined();
  });
});
