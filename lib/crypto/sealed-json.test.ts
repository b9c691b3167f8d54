import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { newKeyRingEntry, parseKeyRing, type RingKey } from "./key-ring.js";
import { createJsonSeal, isSealedJson, plainJson, SealedJsonUnreadable } from "./sealed-json.js";

const keys = (text: string) => parseKeyRing(text) as RingKey[];
const k1 = newKeyRingEntry("k1", randomBytes(32));
const k2 = newKeyRingEntry("k2", randomBytes(32));

describe("sealed run payloads", () => {
  const seal = createJsonSeal(keys(k1));

  it("stores a value sealed, never in clear, and opens it again", () => {
    const value = { order: "ORDER-secret-4711", items: [1, 2, { nested: true }] };
    const stored = seal.seal(value);
    expect(isSealedJson(stored)).toBe(true);
    expect(JSON.stringify(stored)).not.toContain("ORDER-secret-4711");
    expect(JSON.stringify(seal.seal(value))).not.toBe(JSON.stringify(stored));
    expect(seal.open(stored)).toEqual(value);
    for (const scalar of ["text", 42, true, [1, "two"]]) expect(seal.open(seal.seal(scalar))).toEqual(scalar);
  });

  it("leaves null and undefined as they are, and reads plain values stored before", () => {
    expect(seal.seal(null)).toBeNull();
    expect(seal.seal(undefined)).toBeUndefined();
    expect(seal.open({ plain: "stored before" })).toEqual({ plain: "stored before" });
    expect(seal.open(null)).toBeNull();
  });

  it("merges clear fields written beside a sealed object (a handled step error)", () => {
    const stored = { ...(seal.seal({ message: "boom" }) as object), handled: "continue" };
    expect(seal.open(stored)).toEqual({ message: "boom", handled: "continue" });
  });

  it("opens values of every key of the ring, and refuses altered values and missing keys", () => {
    const old = seal.seal({ a: 1 });
    const rotated = createJsonSeal(keys(`${k2},${k1}`));
    expect(rotated.open(old)).toEqual({ a: 1 });
    expect((rotated.seal({ a: 1 }) as { key: string }).key).toBe("k2");
    expect(() => createJsonSeal(keys(k2)).open(old)).toThrow(/key "k1"/);
    const altered = {
      ...(old as object),
      data: (old as { data: string }).data.replace(/.$/, (c) => (c === "A" ? "B" : "A")),
    };
    expect(() => seal.open(altered)).toThrow(SealedJsonUnreadable);
  });

  it("seals text for text columns, and reads plain text stored before", () => {
    const stored = seal.sealText("order ORDER-secret-4711 shipped");
    expect(stored).not.toContain("ORDER-secret");
    expect(stored.startsWith("$sealed:v1:k1:")).toBe(true);
    expect(seal.openText(stored)).toBe("order ORDER-secret-4711 shipped");
    expect(seal.openText("written before")).toBe("written before");
    expect(plainJson.sealText("plain")).toBe("plain");
    expect(() => createJsonSeal(keys(k2)).openText(stored)).toThrow(/key "k1"/);
  });

  it("without a key stores values plain and cannot open sealed ones", () => {
    expect(plainJson.keyId).toBeUndefined();
    expect(plainJson.seal({ a: 1 })).toEqual({ a: 1 });
    expect(() => plainJson.open(seal.seal({ a: 1 }))).toThrow(/SVC_ENCRYPTION_KEY is not set/);
  });
});
