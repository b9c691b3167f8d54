import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createKeyRing, newKeyRingEntry, parseKeyRing, UnknownKeyError, type RingKey } from "./key-ring.js";

const ring = (text: string) => parseKeyRing(text) as RingKey[];

describe("key ring", () => {
  const k1 = newKeyRingEntry("k1", randomBytes(32));
  const k2 = newKeyRingEntry("k2", randomBytes(32));

  it("seals under the first key and opens with any key of the ring", () => {
    const old = createKeyRing(ring(k1));
    const sealed = old.seal("s3cret-value", "ctx");
    expect(sealed.keyId).toBe("k1");
    expect(sealed.ciphertext).not.toContain("s3cret");

    const rotated = createKeyRing(ring(`${k2},${k1}`));
    expect(rotated.currentKeyId).toBe("k2");
    expect(rotated.open(sealed, "ctx")).toBe("s3cret-value");
    expect(rotated.seal("x", "ctx").keyId).toBe("k2");
    expect(() => rotated.open(sealed, "other ctx")).toThrow();

    const withoutOld = createKeyRing(ring(k2));
    expect(() => withoutOld.open(sealed, "ctx")).toThrow(UnknownKeyError);
    expect(() => withoutOld.open(sealed, "ctx")).toThrow(/key "k1", which SVC_ENCRYPTION_KEY lacks/);
  });

  it("accepts hex and base64 keys and spaces around entries", () => {
    const hex = randomBytes(32).toString("hex");
    expect(ring(` a:${hex} , b_2-x:${randomBytes(32).toString("base64")} `).map((k) => k.id)).toEqual(["a", "b_2-x"]);
  });

  it.each([
    ["", /expected <id>:<key>/],
    [randomBytes(32).toString("base64"), /entry 1: expected <id>:<key>/],
    ["k1:short", /key "k1": expected 32 bytes/],
    ["bad id:" + randomBytes(32).toString("base64"), /entry 1: expected <id>:<key>/],
  ])("refuses %j, saying why without showing a key", (text, message) => {
    const result = parseKeyRing(text);
    expect(result).toMatch(message);
    if (text.length > 12) expect(result).not.toContain(text.slice(-12));
  });

  it("refuses an id given twice", () => {
    const key = randomBytes(32).toString("base64");
    expect(parseKeyRing(`k1:${key},k1:${key}`)).toBe('key id "k1" appears twice');
  });
});
