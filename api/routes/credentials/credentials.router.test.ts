// /api/credentials through the app: values written once and never shown again, roles, rotation,
// deletion while flows use a credential.
import { randomBytes } from "node:crypto";
import type { Express } from "express";
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { testPrisma } from "../../../test/helpers/context.js";
import { createTestUser, login, makeTestApps } from "../../../test/helpers/identity.js";
import { readAllPages } from "../../../test/helpers/pages.js";
import type { Role } from "../../../core/workspaces/permissions.js";

const appFor = makeTestApps();
const secret = (label: string) => `${label}-${randomBytes(16).toString("hex")}`;

/** A workspace with one member of each role, each logged in. */
async function teamWorkspace(app: Express) {
  const owner = await createTestUser("cred-owner");
  const workspaceId = owner.workspace.workspaceId;
  const cookies = { owner: (await login(app, owner.email)).cookie } as Record<Role, string>;
  for (const role of ["admin", "editor", "viewer"] as const) {
    const member = await createTestUser(`cred-${role}`);
    await testPrisma().membership.create({ data: { userId: member.user.id, workspaceId, role } });
    cookies[role] = (await login(app, member.email, undefined, { workspaceId })).cookie;
  }
  return { workspaceId, cookies, ownerId: owner.user.id };
}

describe("credentials API", () => {
  let app: Express;
  let team: Awaited<ReturnType<typeof teamWorkspace>>;
  beforeAll(async () => {
    app = appFor().app;
    team = await teamWorkspace(app);
  });
  const as = (role: Role) => ({
    get: (path: string) => request(app).get(path).set("Cookie", team.cookies[role]),
    post: (path: string, body: object) => request(app).post(path).set("Cookie", team.cookies[role]).send(body),
    patch: (path: string, body: object) => request(app).patch(path).set("Cookie", team.cookies[role]).send(body),
    put: (path: string, body: object) => request(app).put(path).set("Cookie", team.cookies[role]).send(body),
    delete: (path: string) => request(app).delete(path).set("Cookie", team.cookies[role]),
  });

  it("stores every type and never answers with a secret value", async () => {
    const secrets = {
      token: secret("tok"),
      password: secret("pw"),
      value: secret("key"),
      header: secret("hdr"),
      client: secret("cs"),
      ai: `sk-${secret("ai")}`,
    };
    const bodies = [
      { name: "Bearer", type: "bearer", data: { token: secrets.token } },
      { name: "Basic", type: "basic", data: { username: "ada", password: secrets.password } },
      { name: "Key", type: "api_key", data: { name: "X-Api-Key", value: secrets.value } },
      {
        name: "Headers",
        type: "headers",
        data: { headers: { "X-Tenant": "acme-tenant", "X-Secret": secrets.header } },
      },
      {
        name: "OAuth",
        type: "oauth2_client_credentials",
        data: {
          token_url: "https://auth.example.com/oauth/token",
          client_id: "svc",
          client_secret: secrets.client,
          audience: "api",
        },
      },
      { name: "AI", type: "ai_provider", data: { provider: "anthropic", api_key: secrets.ai } },
    ];
    const ids: string[] = [];
    for (const body of bodies) {
      const res = await as("admin").post("/api/credentials", body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ name: body.name, type: body.type, created_by: expect.any(String) });
      expect(res.body.id).toMatch(/^cred_[0-9a-f]{24}$/);
      ids.push(res.body.id);
    }
    const { items } = await readAllPages<Record<string, unknown>>(app, team.cookies.viewer, "/api/credentials?limit=4");
    expect(items.map((item) => item.name)).toEqual(bodies.map((b) => b.name));
    expect(items.map((item) => item.fields)).toEqual([
      {},
      { username: "ada" },
      { name: "X-Api-Key", in: "header" },
      { header_names: ["X-Tenant", "X-Secret"] },
      { token_url: "https://auth.example.com/oauth/token", client_id: "svc", audience: "api", client_auth: "basic" },
      { provider: "anthropic" },
    ]);
    expect(items[0]!.hint).toBe(`…${secrets.token.slice(-4)}`);
    expect(items[3]!.hint).toBeNull();
    const one = await as("viewer").get(`/api/credentials/${ids[4]}`);
    expect(one.status).toBe(200);
    const everything = JSON.stringify([items, one.body]);
    for (const value of Object.values(secrets)) expect(everything).not.toContain(value);

    const filtered = await as("editor").get("/api/credentials?type=bearer,basic");
    expect(filtered.body.items.map((item: { type: string }) => item.type)).toEqual(["bearer", "basic"]);
  });

  it("answers 400 naming the field, 404 for another workspace's credential", async () => {
    const missing = await as("owner").post("/api/credentials", { name: "No token", type: "bearer", data: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe("validation_failed");
    expect(missing.body.details).toContainEqual(expect.objectContaining({ path: "data.token" }));
    const badType = await as("owner").post("/api/credentials", { name: "x", type: "password", data: {} });
    expect(badType.status).toBe(400);
    const badHeader = await as("owner").post("/api/credentials", {
      name: "Host",
      type: "api_key",
      data: { name: "Host", value: "v" },
    });
    expect(badHeader.status).toBe(400);

    const stranger = await createTestUser("cred-stranger");
    const theirs = await request(app)
      .post("/api/credentials")
      .set("Cookie", (await login(app, stranger.email)).cookie)
      .send({ name: "Theirs", type: "bearer", data: { token: secret("t") } });
    expect(theirs.status).toBe(201);
    for (const res of [
      await as("owner").get(`/api/credentials/${theirs.body.id}`),
      await as("owner").patch(`/api/credentials/${theirs.body.id}`, { name: "Mine" }),
      await as("owner").delete(`/api/credentials/${theirs.body.id}`),
    ]) {
      expect([res.status, res.body.code]).toEqual([404, "not_found"]);
    }
  });

  it("lets admins and owners create, rotate and delete; editors and viewers read", async () => {
    const body = { name: `Roles ${Date.now()}`, type: "bearer", data: { token: secret("t") } };
    for (const role of ["editor", "viewer"] as const) {
      const refused = await as(role).post("/api/credentials", body);
      expect([refused.status, refused.body.code]).toEqual([403, "forbidden"]);
    }
    const created = await as("owner").post("/api/credentials", body);
    expect(created.status).toBe(201);
    const path = `/api/credentials/${created.body.id}`;
    for (const role of ["editor", "viewer"] as const) {
      expect((await as(role).get(path)).status).toBe(200);
      expect((await as(role).patch(path, { name: "Renamed" })).status).toBe(403);
      expect((await as(role).delete(path)).status).toBe(403);
    }
    const renamed = await as("admin").patch(path, { name: "Renamed by admin" });
    expect(renamed.body).toMatchObject({ name: "Renamed by admin", hint: created.body.hint });
    expect((await as("admin").delete(path)).status).toBe(200);
    expect((await as("admin").get(path)).status).toBe(404);
  });

  it("rotates a value: the new one is used, neither is shown, the type and other fields stay", async () => {
    const first = secret("first");
    const second = secret("second");
    const created = await as("owner").post("/api/credentials", {
      name: `Rotate ${Date.now()}`,
      type: "basic",
      data: { username: "svc-user", password: first },
    });
    const path = `/api/credentials/${created.body.id}`;
    const rotated = await as("owner").patch(path, { data: { password: second } });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body).toMatchObject({
      type: "basic",
      fields: { username: "svc-user" },
      hint: `…${second.slice(-4)}`,
    });
    expect(JSON.stringify(rotated.body)).not.toContain(second);
    const row = await testPrisma().credential.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.ciphertext).not.toContain(second);
    expect(row.updatedAt.getTime()).toBeGreaterThanOrEqual(row.createdAt.getTime());

    const wrongField = await as("owner").patch(path, { data: { token: "x" } });
    expect(wrongField.status).toBe(400);
    expect(wrongField.body.details).toContainEqual(expect.objectContaining({ path: "data" }));
    expect((await as("owner").patch(path, {})).status).toBe(400);
    expect((await as("owner").patch(path, { type: "bearer" })).status).toBe(400);
  });

  it("keeps a credential's allowed hosts as shown fields, changed like any value, and refuses what is no host", async () => {
    const created = await as("owner").post("/api/credentials", {
      name: "Confined",
      type: "bearer",
      data: { token: secret("c"), allowed_hosts: ["API.shop.test", "*.cdn.shop.test"] },
    });
    expect(created.status).toBe(201);
    expect(created.body.fields).toEqual({ allowed_hosts: ["api.shop.test", "*.cdn.shop.test"] });
    const changed = await as("owner").patch(`/api/credentials/${created.body.id}`, {
      data: { allowed_hosts: ["api.shop.test"] },
    });
    expect(changed.body.fields).toEqual({ allowed_hosts: ["api.shop.test"] });
    const bad = await as("owner").post("/api/credentials", {
      name: "Wide open",
      type: "bearer",
      data: { token: secret("w"), allowed_hosts: ["https://shop.test/path"] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toContainEqual(expect.objectContaining({ path: "data.allowed_hosts.0" }));
  });

  it("refuses a taken name with 409", async () => {
    const body = { name: `Twice ${Date.now()}`, type: "bearer", data: { token: secret("t") } };
    expect((await as("owner").post("/api/credentials", body)).status).toBe(201);
    const again = await as("owner").post("/api/credentials", body);
    expect([again.status, again.body.code]).toEqual([409, "credential_name_taken"]);
  });

  it("refuses to delete a credential flows use (409 with the flows), unless forced", async () => {
    const created = await as("owner").post("/api/credentials", {
      name: `In use ${Date.now()}`,
      type: "bearer",
      data: { token: secret("t") },
    });
    const id = created.body.id as string;
    const flowId = `wf_${randomBytes(12).toString("hex")}`;
    const now = new Date();
    await testPrisma().flow.create({
      data: {
        id: flowId,
        workspaceId: team.workspaceId,
        name: "Calls the API",
        definition: { nodes: [{ id: "call", type: "http_request", config: { url: "https://x", credential_id: id } }] },
        createdAt: now,
        updatedAt: now,
      },
    });
    const users = await as("viewer").get(`/api/credentials/${id}/flows`);
    expect(users.body).toEqual({ items: [{ id: flowId, name: "Calls the API" }] });
    const refused = await as("owner").delete(`/api/credentials/${id}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: expect.stringContaining("Calls the API"),
      code: "credential_in_use",
      flows: [{ id: flowId, name: "Calls the API" }],
    });
    expect((await as("owner").get(`/api/credentials/${id}`)).status).toBe(200);
    const forced = await as("owner").delete(`/api/credentials/${id}?force=true`);
    expect(forced.status).toBe(200);
    expect((await as("owner").get(`/api/credentials/${id}`)).status).toBe(404);
  });

  it("keeps the AI key endpoints working on top of ai_provider credentials", async () => {
    const key = `sk-${secret("ws")}`;
    const put = await as("admin").put("/api/workspace/ai-keys/openai", { api_key: key });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ provider: "openai", source: "workspace", last4: key.slice(-4) });
    const listed = await as("viewer").get("/api/credentials?type=ai_provider");
    const own = listed.body.items.find((item: { default_for: string | null }) => item.default_for === "openai");
    expect(own).toMatchObject({ name: "OpenAI (workspace key)", fields: { provider: "openai" } });
    expect(JSON.stringify(listed.body)).not.toContain(key);
    // Rotated through the credentials API, seen by the old one.
    const rotated = `sk-${secret("rot")}`;
    expect((await as("admin").patch(`/api/credentials/${own.id}`, { data: { api_key: rotated } })).status).toBe(200);
    const keys = await as("viewer").get("/api/workspace/ai-keys");
    expect(keys.body.items[0]).toMatchObject({ provider: "openai", source: "workspace", last4: rotated.slice(-4) });
  });
});

describe("credentials API without SVC_ENCRYPTION_KEY", () => {
  it("answers 409 credentials_disabled and stores nothing", async () => {
    const { app } = appFor({ SVC_ENCRYPTION_KEY: "" });
    const user = await createTestUser("cred-nokey");
    const { cookie } = await login(app, user.email);
    const res = await request(app)
      .post("/api/credentials")
      .set("Cookie", cookie)
      .send({ name: "Nope", type: "bearer", data: { token: "tok-123" } });
    expect([res.status, res.body.code]).toEqual([409, "credentials_disabled"]);
    expect(res.body.error).toContain("SVC_ENCRYPTION_KEY");
    expect(await testPrisma().credential.count({ where: { workspaceId: user.workspace.workspaceId } })).toBe(0);
  });
});
