// npm run credentials:reencrypt as an operator runs it, on a database of its own (the command
// goes through every workspace's credentials).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { systemClock } from "../lib/clock.js";
import { newKeyRingEntry, parseKeyRing, type RingKey } from "../lib/crypto/key-ring.js";
import { createSecretBox } from "../lib/crypto/secret-box.js";
import { createPrismaClient, type PrismaClient } from "../lib/db.js";
import { createCredentialsService, LEGACY_AI_KEY_ID } from "../core/credentials/credentials.service.js";
import { cleanEnv, runEntry } from "../test/helpers/processes.js";
import { dropDatabase, ensureDatabase } from "./infra/postgres.js";
import { applyMigrations } from "./infra/prisma-cli.js";

const k1 = newKeyRingEntry("k1", randomBytes(32));
const k2 = newKeyRingEntry("k2", randomBytes(32));
const legacySecret = randomBytes(32).toString("hex");
const database = `svc_reencrypt_${process.pid}`;
const adminUrl = Object.assign(new URL(inject("databaseUrl")), { pathname: "/postgres" }).toString();
const databaseUrl = Object.assign(new URL(inject("databaseUrl")), { pathname: `/${database}` }).toString();
const scratch = mkdtempSync(path.join(os.tmpdir(), "svc-reencrypt-"));
let prisma: PrismaClient;

beforeAll(async () => {
  await ensureDatabase(adminUrl, database);
  await applyMigrations(databaseUrl);
  prisma = createPrismaClient(databaseUrl, { maxConnections: 2 });
}, 120_000);
afterAll(async () => {
  await prisma?.$disconnect();
  await dropDatabase(adminUrl, database);
  rmSync(scratch, { recursive: true, force: true });
});

const reencrypt = (keys: Record<string, string>) =>
  runEntry(
    "scripts/credentials-reencrypt.ts",
    [],
    cleanEnv({ DATABASE_URL: databaseUrl, SVC_DATA_DIR: scratch, SVC_ENCRYPTION_KEY: "", AI_KEYS_SECRET: "", ...keys }),
  );

describe("npm run credentials:reencrypt", () => {
  it("seals values under older keys and AI_KEYS_SECRET again under the first key, and says what it could not open", async () => {
    const now = new Date();
    await prisma.workspace.create({ data: { id: "ws_reencrypt", name: "Reencrypt" } });
    const old = createCredentialsService({
      prisma,
      clock: systemClock,
      config: { SVC_ENCRYPTION_KEY: parseKeyRing(k1) as RingKey[] },
    });
    const bearer = await old.create("ws_reencrypt", "usr_x", {
      name: "Bearer",
      type: "bearer",
      data: { token: "bearer-token-1234567" },
    });
    await prisma.credential.create({
      data: {
        id: "cred_000000000000000000000001",
        workspaceId: "ws_reencrypt",
        name: "OpenAI (workspace key)",
        type: "ai_provider",
        fields: { provider: "openai" },
        keyId: LEGACY_AI_KEY_ID,
        ciphertext: createSecretBox(Buffer.from(legacySecret, "hex")).seal("sk-legacy-123456", "ws_reencrypt:openai"),
        defaultFor: "openai",
        createdAt: now,
        updatedAt: now,
      },
    });

    // Without the old key the values stay as they are, named by id.
    const lacking = await reencrypt({ SVC_ENCRYPTION_KEY: k2 });
    expect(lacking.code).toBe(1);
    expect(lacking.output).toContain(`${bearer.id}: The credential cannot be opened`);
    expect(lacking.output).toContain("cred_000000000000000000000001: The credential cannot be opened");
    expect((await prisma.credential.findMany({ orderBy: { id: "asc" } })).map((r) => r.keyId)).toEqual([
      LEGACY_AI_KEY_ID,
      "k1",
    ]);

    const done = await reencrypt({ SVC_ENCRYPTION_KEY: `${k2},${k1}`, AI_KEYS_SECRET: legacySecret });
    expect(done.code, done.output).toBe(0);
    expect(done.output).toContain('re-encrypted 2 credential(s) under key "k2"; 0 remain under other keys');
    expect(done.output).not.toContain("bearer-token-1234567");
    expect((await prisma.credential.findMany()).map((r) => r.keyId)).toEqual(["k2", "k2"]);

    const current = createCredentialsService({
      prisma,
      clock: systemClock,
      config: { SVC_ENCRYPTION_KEY: parseKeyRing(k2) as RingKey[] },
    });
    expect((await current.open("ws_reencrypt", bearer.id)).data).toEqual({ token: "bearer-token-1234567" });
    expect(await (await current.defaultAiKey("ws_reencrypt", "openai"))!.apiKey()).toBe("sk-legacy-123456");
  });

  it("needs a key to seal with", async () => {
    const none = await reencrypt({});
    expect(none.code).toBe(1);
    expect(none.output.trim()).toBe("No key to seal with: set SVC_ENCRYPTION_KEY (README: Credentials)");
  });
});
