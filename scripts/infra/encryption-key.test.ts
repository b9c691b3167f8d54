import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseKeyRing } from "../../lib/crypto/key-ring.js";
import { encryptionKeyFile, localEncryptionKey } from "./encryption-key.js";

describe("npm start's encryption key", () => {
  let dir: string;
  const saved = process.env.SVC_DATA_DIR;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "svc-key-"));
    process.env.SVC_DATA_DIR = path.join(dir, "data");
  });
  afterEach(() => {
    process.env.SVC_DATA_DIR = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it("is made once, readable by its owner only, and found again", () => {
    expect(localEncryptionKey({}, { create: false })).toBeUndefined();
    const created = localEncryptionKey({}, { create: true })!;
    expect(created.source).toBe("created");
    expect(encryptionKeyFile()).toBe(path.join(dir, "data", "encryption-key"));
    expect(statSync(encryptionKeyFile()).mode & 0o777).toBe(0o600);
    // Made first, the data directory stays traversable: the embedded PostgreSQL runs as another OS user.
    expect(statSync(path.join(dir, "data")).mode & 0o011).not.toBe(0);
    const ring = parseKeyRing(created.value);
    expect(typeof ring === "string" ? ring : ring.map((k) => k.id)).toEqual(["k1"]);

    const again = localEncryptionKey({}, { create: true })!;
    expect(again).toEqual({ value: created.value, source: "file" });
    expect(readFileSync(encryptionKeyFile(), "utf8").trim()).toBe(created.value);
  });

  it("leaves the file alone when SVC_ENCRYPTION_KEY is set", () => {
    expect(localEncryptionKey({ SVC_ENCRYPTION_KEY: "k9:x" }, { create: true })).toEqual({
      value: "k9:x",
      source: "environment",
    });
    expect(() => statSync(encryptionKeyFile())).toThrow();
  });

  it("makes a key file copied with looser permissions private again", () => {
    localEncryptionKey({}, { create: true });
    chmodSync(encryptionKeyFile(), 0o644);
    writeFileSync(encryptionKeyFile(), "k7:abc\n");
    expect(localEncryptionKey({}, { create: false })!.value).toBe("k7:abc");
    expect(statSync(encryptionKeyFile()).mode & 0o777).toBe(0o600);
  });
});
