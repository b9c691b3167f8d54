// The credential store over the test database: sealing, binding, rotation and re-encryption.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../lib/clock.js";
import { newKeyRingEntry, parseKeyRing, type RingKey } from "../../lib/crypto/key-ring.js";
import { createSecretBox } from "../../lib/crypto/secret-box.js";
import { testPrisma } from "../../test/helpers/context.js";
import { createTestUser } from "../../test/helpers/identity.js";
import { CredentialInUse, CredentialNotFound, CredentialsDisabled, CredentialUnreadable } from "../errors.js";
import { createCredentialsService, LEGACY_AI_KEY_ID } from "./credentials.service.js";

const keys = (text: string) => parseKeyRing(text) as RingKey[];
const k1 = newKeyRingEntry("k1", randomBytes(32));
const k2 = newKeyRingEntry("k2", randomBytes(32));
const serviceWith = (SVC_ENCRYPTION_KEY?: string, AI_KEYS_SECRET?: string) =>
  createCredentialsService({
    prisma: testPrisma(),
    clock: systemClock,
    config: { SVC_ENCRYPTION_KEY: SVC_ENCRYPTION_KEY ? keys(SVC_ENCRYPTION_KEY) : undefined, AI_KEYS_SECRET },
  });

let workspaceId: string;
let userId: string;
beforeAll(async () => {
  const user = await createTestUser("creds");
  workspaceId = user.workspace.workspaceId;
  userId = user.user.id;
});

describe("credentials service", () => {
  it("stores the secret sealed, shows only the other fields and a hint, and opens it for the worker", async () => {
    const service = serviceWith(k1);
    const secret = `cs-${randomBytes(12).toString("hex")}`;
    const view = await service.create(workspaceId, userId, {
      name: `oauth ${randomBytes(4).toString("hex")}`,
      type: "oauth2_client_credentials",
      data: {
        token_url: "https://auth.example.com/token",
        client_id: "svc-client",
        client_secret: secret,
        scope: "read",
      },
    });
    expect(view).toMatchObject({
      type: "oauth2_client_credentials",
      fields: {
        token_url: "https://auth.example.com/token",
        client_id: "svc-client",
        scope: "read",
        client_auth: "basic",
      },
      hint: `…${secret.slice(-4)}`,
      created_by: userId,
      updated_by: userId,
    });
    expect(JSON.stringify(view)).not.toContain(secret);
    const row = await testPrisma().credential.findUniqueOrThrow({ where: { id: view.id } });
    expect(row.keyId).toBe("k1");
    expect(JSON.stringify(row)).not.toContain(secret);

    const opened = await service.open(workspaceId, view.id);
    expect(opened.data).toEqual({
      token_url: "https://auth.example.com/token",
      client_id: "svc-client",
      client_secret: secret,
      scope: "read",
      client_auth: "basic",
    });
    await expect(service.open("ws_000000000000000000000000", view.id)).rejects.toThrow(CredentialNotFound);
  });

  it("does not open a value moved to another row, or under fields changed in the database", async () => {
    const service = serviceWith(k1);
    const a = await service.create(workspaceId, userId, {
      name: `a ${Date.now()}`,
      type: "bearer",
      data: { token: "tok-aaaaaaaaaaaa" },
    });
    const b = await service.create(workspaceId, userId, {
      name: `b ${Date.now()}`,
      type: "bearer",
      data: { token: "tok-bbbbbbbbbbbb" },
    });
    const rowA = await testPrisma().credential.findUniqueOrThrow({ where: { id: a.id } });
    await testPrisma().credential.update({ where: { id: b.id }, data: { ciphertext: rowA.ciphertext } });
    await expect(service.open(workspaceId, b.id)).rejects.toThrow(CredentialUnreadable);

    const c = await service.create(workspaceId, userId, {
      name: `c ${Date.now()}`,
      type: "oauth2_client_credentials",
      data: { token_url: "https://auth.example.com/token", client_id: "x", client_secret: "secret-value-1" },
    });
    await testPrisma().credential.update({
      where: { id: c.id },
      data: { fields: { token_url: "https://attacker.example/token", client_id: "x", client_auth: "basic" } },
    });
    const error: unknown = await service.open(workspaceId, c.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialUnreadable);
    expect((error as Error).message).not.toContain("secret-value-1");
  });

  it("renames and rotates: data is merged over the stored values and checked whole", async () => {
    const service = serviceWith(k1);
    const created = await service.create(workspaceId, userId, {
      name: `key ${Date.now()}`,
      type: "api_key",
      data: { name: "api_key", value: "first-value-123456", in: "query" },
    });
    const rotated = await service.update(workspaceId, userId, created.id, { data: { value: "second-value-654321" } });
    expect(rotated.fields).toEqual({ name: "api_key", in: "query" });
    expect(rotated.hint).toBe("…4321");
    expect((await service.open(workspaceId, created.id)).data).toEqual({
      name: "api_key",
      value: "second-value-654321",
      in: "query",
    });
    await expect(service.update(workspaceId, userId, created.id, { data: { in: "body" } })).rejects.toMatchObject({
      code: "validation_failed",
      details: { details: [expect.objectContaining({ path: "data.in" })] },
    });
    await expect(
      service.update(workspaceId, userId, created.id, { data: { valu: "typo-typo-typo" } }),
    ).rejects.toMatchObject({ code: "validation_failed" });
  });

  it("hides short secrets entirely and refuses a name taken in the workspace", async () => {
    const service = serviceWith(k1);
    const name = `basic ${Date.now()}`;
    const view = await service.create(workspaceId, userId, {
      name,
      type: "basic",
      data: { username: "ada", password: "short-pw" },
    });
    expect(view.hint).toBeNull();
    expect(view.fields).toEqual({ username: "ada" });
    await expect(
      service.create(workspaceId, userId, { name, type: "bearer", data: { token: "t" } }),
    ).rejects.toMatchObject({ code: "credential_name_taken" });
  });

  it("refuses to delete a credential flows use, unless forced", async () => {
    const service = serviceWith(k1);
    const view = await service.create(workspaceId, userId, {
      name: `used ${Date.now()}`,
      type: "bearer",
      data: { token: "used-token-123456" },
    });
    const now = new Date();
    const flowId = `wf_${randomBytes(12).toString("hex")}`;
    await testPrisma().flow.create({
      data: {
        id: flowId,
        workspaceId,
        name: "Uses the token",
        definition: { nodes: [{ id: "call", type: "http_request", config: { credential_id: view.id } }], edges: [] },
        createdAt: now,
        updatedAt: now,
      },
    });
    const refused = await service.remove(workspaceId, view.id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CredentialInUse);
    expect((refused as CredentialInUse).details).toEqual({ flows: [{ id: flowId, name: "Uses the token" }] });
    await service.remove(workspaceId, view.id, { force: true });
    await expect(service.get(workspaceId, view.id)).rejects.toThrow(CredentialNotFound);
  });

  it("cannot store without SVC_ENCRYPTION_KEY", async () => {
    await expect(
      serviceWith().create(workspaceId, userId, { name: "x", type: "bearer", data: { token: "t" } }),
    ).rejects.toThrow(CredentialsDisabled);
  });

  it("re-encrypts values under older keys, and AI keys sealed with AI_KEYS_SECRET, under the current key", async () => {
    const legacySecret = randomBytes(32).toString("hex");
    const other = await createTestUser("creds-rotate");
    const ws = other.workspace.workspaceId;
    const before = await serviceWith(k1).create(ws, userId, {
      name: "old",
      type: "bearer",
      data: { token: "old-token-abcdef" },
    });
    // A provider key as the key store sealed it before credentials existed (its migration copies it so).
    const now = new Date();
    await testPrisma().credential.create({
      data: {
        id: `cred_${randomBytes(12).toString("hex")}`,
        workspaceId: ws,
        name: "OpenAI (workspace key)",
        type: "ai_provider",
        fields: { provider: "openai" },
        keyId: LEGACY_AI_KEY_ID,
        ciphertext: createSecretBox(Buffer.from(legacySecret, "hex")).seal("sk-legacy-key-7777", `${ws}:openai`),
        last4: "7777",
        defaultFor: "openai",
        createdAt: now,
        updatedAt: now,
      },
    });

    const rotated = serviceWith(`${k2},${k1}`, legacySecret);
    expect(await (await rotated.defaultAiKey(ws, "openai"))!.apiKey()).toBe("sk-legacy-key-7777");
    const result = await rotated.reencryptAll({ batchSize: 1 });
    // The whole database: other tests' rows, under keys this ring lacks, are reported and left alone.
    const rows = await testPrisma().credential.findMany({ where: { workspaceId: ws } });
    expect(result.unreadable.filter((u) => rows.some((r) => r.id === u.id))).toEqual([]);
    expect(result.reencrypted).toBeGreaterThanOrEqual(2);
    expect(result.remaining).toBe(result.unreadable.length);
    expect(rows.map((r) => r.keyId)).toEqual(["k2", "k2"]);
    expect(JSON.stringify(result)).not.toContain("sk-legacy-key-7777");

    // Only the new key is needed now.
    const onlyNew = serviceWith(k2);
    expect((await onlyNew.open(ws, before.id)).data).toEqual({ token: "old-token-abcdef" });
    expect(await (await onlyNew.defaultAiKey(ws, "openai"))!.apiKey()).toBe("sk-legacy-key-7777");
    await expect(serviceWith(k1).open(ws, before.id)).rejects.toThrow(/key "k2", which SVC_ENCRYPTION_KEY lacks/);
  });
});
