import { pbkdf2Sync, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "./password.js";

/** A hash as the spec's earlier service stored it: 100,000 iterations. */
function legacyHash(password: string): string {
  const salt = randomBytes(16);
  const key = pbkdf2Sync(password, salt, 100_000, 32, "sha256");
  return `pbkdf2_sha256$100000$${salt.toString("base64")}$${key.toString("base64")}`;
}

describe("password hashing", () => {
  it("verifies the password it hashed and refuses another", async () => {
    const stored = await hashPassword("correct horse battery", 1000);
    expect(stored).toMatch(/^pbkdf2_sha256\$1000\$/);
    expect(await verifyPassword("correct horse battery", stored, 1000)).toEqual({ valid: true, needsRehash: false });
    expect(await verifyPassword("correct horse battery!", stored, 1000)).toEqual({ valid: false, needsRehash: false });
  });

  it("salts every hash", async () => {
    expect(await hashPassword("same password", 1000)).not.toBe(await hashPassword("same password", 1000));
  });

  it("accepts a legacy 100,000-iteration hash and asks for a re-hash", async () => {
    const check = await verifyPassword("legacy password", legacyHash("legacy password"), 600_000);
    expect(check).toEqual({ valid: true, needsRehash: true });
  });

  it("refuses malformed stored hashes", async () => {
    for (const stored of ["", "plain", "pbkdf2_sha256$x$abc$def", "bcrypt$10$abc$def"]) {
      expect(await verifyPassword("anything", stored)).toEqual({ valid: false, needsRehash: false });
    }
  });
});
