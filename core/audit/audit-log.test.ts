// The audit log through the app: each covered action writes exactly one row, in the workspace
// acted in, with the right actor (a person in a session, or an API token), and no secret value.
import { randomBytes } from "node:crypto";
import type { Express } from "express";
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { testPrisma } from "../../test/helpers/context.js";
import { createTestUser, login, makeTestApps } from "../../test/helpers/identity.js";

const appFor = makeTestApps();

describe("audit log", () => {
  let app: Express;
  let owner: Awaited<ReturnType<typeof createTestUser>>;
  let cookie: string;
  const secret = `audit-secret-${randomBytes(16).toString("hex")}`;
  const rotated = `audit-rotated-${randomBytes(16).toString("hex")}`;

  beforeAll(async () => {
    app = appFor().app;
    owner = await createTestUser("audit-owner");
    cookie = (await login(app, owner.email)).cookie;
  });

  const rows = (filter: { action?: string; objectId?: string } = {}) =>
    testPrisma().auditEvent.findMany({
      where: { workspaceId: owner.workspace.workspaceId, ...filter },
      orderBy: [{ at: "asc" }, { id: "asc" }],
    });

  it("records a credential's creation, rotation and deletion once each by the person, never its values", async () => {
    const created = await request(app)
      .post("/api/credentials")
      .set("Cookie", cookie)
      .set("User-Agent", "audit-test-agent")
      .send({ name: "Stripe", type: "bearer", data: { token: secret } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const rotate = await request(app)
      .patch(`/api/credentials/${id}`)
      .set("Cookie", cookie)
      .send({ data: { token: rotated } });
    expect(rotate.status).toBe(200);
    // A refused change (bad values) writes nothing.
    const refused = await request(app)
      .patch(`/api/credentials/${id}`)
      .set("Cookie", cookie)
      .send({ data: { token: "" } });
    expect(refused.status).toBe(400);
    const removed = await request(app).delete(`/api/credentials/${id}`).set("Cookie", cookie);
    expect(removed.status).toBe(200);

    const written = await rows({ objectId: id });
    expect(written.map((row) => row.action)).toEqual([
      "credential.created",
      "credential.updated",
      "credential.deleted",
    ]);
    for (const row of written)
      expect(row).toMatchObject({
        actorKind: "person",
        actorId: owner.user.id,
        actorLabel: owner.email,
        objectKind: "credential",
      });
    expect(written[0]).toMatchObject({ userAgent: "audit-test-agent", details: { name: "Stripe", type: "bearer" } });
    expect(written[0]!.sourceIp).toBeTruthy();
    expect(written[1]!.details).toMatchObject({ fields_replaced: ["token"] });
    const text = JSON.stringify(await testPrisma().auditEvent.findMany());
    expect(text).not.toContain(secret);
    expect(text).not.toContain(rotated);
  });

  it("records the workspace's own provider key stored, rotated and removed as the credential it is, never the key", async () => {
    const keys = [
      `sk-audit-first-${randomBytes(8).toString("hex")}`,
      `sk-audit-second-${randomBytes(8).toString("hex")}`,
    ];
    for (const key of keys) {
      const stored = await request(app)
        .put("/api/workspace/ai-keys/openai")
        .set("Cookie", cookie)
        .send({ api_key: key });
      expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    }
    const credential = await testPrisma().credential.findFirstOrThrow({
      where: { workspaceId: owner.workspace.workspaceId, defaultFor: "openai" },
    });
    expect((await request(app).delete("/api/workspace/ai-keys/openai").set("Cookie", cookie)).status).toBe(200);
    // Nothing left to remove: 404, and nothing written.
    expect((await request(app).delete("/api/workspace/ai-keys/openai").set("Cookie", cookie)).status).toBe(404);

    const written = await rows({ objectId: credential.id });
    expect(written.map((row) => [row.action, row.actorId, row.details])).toEqual([
      ["credential.created", owner.user.id, { name: credential.name, type: "ai_provider" }],
      ["credential.updated", owner.user.id, { name: credential.name, fields_replaced: ["api_key"] }],
      ["credential.deleted", owner.user.id, { name: credential.name, type: "ai_provider" }],
    ]);
    const text = JSON.stringify(written);
    for (const key of keys) expect(text).not.toContain(key);
  });

  it("records webhook endpoints created, changed and deleted and the signing secret rotated, with the host only and never a secret", async () => {
    const hookPath = `/services/T0/B0/${randomBytes(12).toString("hex")}`;
    const created = await request(app)
      .post("/api/settings/webhooks")
      .set("Cookie", cookie)
      .send({ url: `https://hooks.example.com${hookPath}`, events: ["run.failed"] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const changed = await request(app)
      .put(`/api/settings/webhooks/${id}`)
      .set("Cookie", cookie)
      .send({ enabled: false });
    expect(changed.status).toBe(200);
    // The same values again change nothing and write nothing.
    expect(
      (await request(app).put(`/api/settings/webhooks/${id}`).set("Cookie", cookie).send({ enabled: false })).status,
    ).toBe(200);
    const rotated = await request(app).post("/api/settings/webhooks/secret/rotate").set("Cookie", cookie);
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect((await request(app).delete(`/api/settings/webhooks/${id}`).set("Cookie", cookie)).status).toBe(200);

    const written = await rows({ objectId: id });
    const host = "hooks.example.com";
    expect(written.map((row) => [row.action, row.actorId, row.details])).toEqual([
      ["webhook.created", owner.user.id, { host, events: ["run.failed"], enabled: true, secret_created: true }],
      ["webhook.updated", owner.user.id, { host, events: ["run.failed"], enabled: false, changed: ["enabled"] }],
      ["webhook.deleted", owner.user.id, { host, events: ["run.failed"], enabled: false }],
    ]);
    const rotations = await rows({ action: "webhook.secret_rotated" });
    expect(rotations).toHaveLength(1);
    expect(rotations[0]).toMatchObject({ objectKind: "workspace", objectId: owner.workspace.workspaceId });
    const text = JSON.stringify([...written, ...rotations]);
    for (const secret of [hookPath, created.body.secret as string, rotated.body.secret as string])
      expect(text).not.toContain(secret);
  });

  it("records the workspace's own model prices set and removed, a refused removal not at all", async () => {
    const price = { provider: "openai", model: "gpt-audit", input_per_mtok: 1.5, output_per_mtok: 6 };
    expect((await request(app).put("/api/usage/prices").set("Cookie", cookie).send(price)).status).toBe(200);
    const remove = () => request(app).delete("/api/usage/prices?provider=openai&model=gpt-audit").set("Cookie", cookie);
    expect((await remove()).status).toBe(204);
    expect((await remove()).status).toBe(404);
    const written = (await rows()).filter((row) => row.action.startsWith("price."));
    expect(written.map((row) => [row.action, row.actorId, row.objectId, row.details])).toEqual([
      ["price.set", owner.user.id, owner.workspace.workspaceId, price],
      ["price.removed", owner.user.id, owner.workspace.workspaceId, { provider: "openai", model: "gpt-audit" }],
    ]);
  });

  it("records a token's creation and revocation, and what a token does as the token", async () => {
    const made = await request(app)
      .post("/api/workspace/tokens")
      .set("Cookie", cookie)
      .send({ name: "Deployer", scopes: ["admin"] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const token = made.body as { id: string; token: string };

    const byToken = await request(app)
      .post("/api/credentials")
      .set("Authorization", `Bearer ${token.token}`)
      .send({ name: "ByToken", type: "bearer", data: { token: secret } });
    expect(byToken.status, JSON.stringify(byToken.body)).toBe(201);

    expect(await request(app).delete(`/api/workspace/tokens/${token.id}`).set("Cookie", cookie)).toHaveProperty(
      "status",
      200,
    );
    // A second revocation changes nothing and records nothing.
    expect(await request(app).delete(`/api/workspace/tokens/${token.id}`).set("Cookie", cookie)).toHaveProperty(
      "status",
      200,
    );

    const tokenRows = await rows({ objectId: token.id });
    expect(tokenRows.map((row) => [row.action, row.actorKind, row.actorId])).toEqual([
      ["token.created", "person", owner.user.id],
      ["token.revoked", "person", owner.user.id],
    ]);
    expect(tokenRows[0]!.details).toEqual({ name: "Deployer", scopes: ["admin"] });
    const credentialRows = await rows({ objectId: byToken.body.id });
    expect(credentialRows).toHaveLength(1);
    expect(credentialRows[0]).toMatchObject({
      action: "credential.created",
      actorKind: "token",
      actorId: token.id,
      actorLabel: "Deployer",
    });
    const text = JSON.stringify(await testPrisma().auditEvent.findMany());
    expect(text).not.toContain(token.token);
    expect(text).not.toContain(secret);
  });

  it("is read by admins through GET /api/audit, filtered and paged, and exported as CSV without a secret", async () => {
    const list = await request(app).get("/api/audit?action=credential.&limit=2").set("Cookie", cookie);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.items).toHaveLength(2);
    expect(list.body.next_cursor).toEqual(expect.any(String));
    const rest = await request(app)
      .get(`/api/audit?action=credential.&limit=200&cursor=${list.body.next_cursor}`)
      .set("Cookie", cookie);
    expect(rest.status).toBe(200);
    const all = [...list.body.items, ...rest.body.items] as Array<{ id: string; action: string; at: string }>;
    expect(new Set(all.map((event) => event.id)).size).toBe(all.length);
    expect(all.length).toBe((await rows()).filter((row) => row.action.startsWith("credential.")).length);
    expect(all.every((event) => event.action.startsWith("credential."))).toBe(true);
    // Newest first.
    expect([...all].sort((a, b) => b.at.localeCompare(a.at)).map((e) => e.at)).toEqual(all.map((e) => e.at));

    const byPerson = await request(app).get(`/api/audit?actor=${owner.user.id}&limit=200`).set("Cookie", cookie);
    expect(byPerson.body.items.length).toBeGreaterThan(0);
    expect(byPerson.body.items.every((event: { actor: { id: string } }) => event.actor.id === owner.user.id)).toBe(
      true,
    );
    const future = await request(app).get("/api/audit?since=2999-01-01T00:00:00Z").set("Cookie", cookie);
    expect(future.body.items).toEqual([]);

    const csv = await request(app).get("/api/audit?format=csv").set("Cookie", cookie);
    expect(csv.status).toBe(200);
    expect(csv.headers["content-type"]).toMatch(/^text\/csv/);
    expect(csv.headers["content-disposition"]).toBe('attachment; filename="audit.csv"');
    const lines = csv.text.trim().split("\r\n");
    expect(lines[0]).toBe(
      "at,actor_kind,actor_id,actor_label,source_ip,user_agent,action,object_kind,object_id,details",
    );
    expect(lines.length - 1).toBe((await rows()).length);
    expect(csv.text).toContain("credential.deleted");
    expect(csv.text).not.toContain(secret);
    expect(csv.text).not.toContain(rotated);
    expect(JSON.stringify(list.body) + JSON.stringify(rest.body)).not.toContain(secret);

    // The JSON export: the same filter's rows, every one (no cursor), as a file.
    const exported = await request(app).get("/api/audit?format=json&action=credential.").set("Cookie", cookie);
    expect(exported.status).toBe(200);
    expect(exported.headers["content-type"]).toMatch(/^application\/json/);
    expect(exported.headers["content-disposition"]).toBe('attachment; filename="audit.json"');
    const file = JSON.parse(exported.text) as { items: Array<{ id: string }> };
    expect(file.items.map((event) => event.id)).toEqual(all.map((event) => event.id));
    expect(exported.text).not.toContain(secret);
    const filteredCsv = await request(app).get(`/api/audit?format=csv&actor=${owner.user.id}`).set("Cookie", cookie);
    expect(filteredCsv.text.trim().split("\r\n").length - 1).toBe(
      (await rows()).filter((row) => row.actorId === owner.user.id).length,
    );
    expect((await request(app).get("/api/audit?format=xml").set("Cookie", cookie)).status).toBe(400);
  });

  it("answers 403 to viewers and editors and to tokens without the admin scope, and shows no other workspace's rows", async () => {
    for (const role of ["viewer", "editor"] as const) {
      const member = await createTestUser(`audit-${role}`);
      await testPrisma().membership.create({
        data: { userId: member.user.id, workspaceId: owner.workspace.workspaceId, role },
      });
      const memberCookie = (await login(app, member.email, undefined, { workspaceId: owner.workspace.workspaceId }))
        .cookie;
      const refused = await request(app).get("/api/audit").set("Cookie", memberCookie);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    }
    const reader = await request(app)
      .post("/api/workspace/tokens")
      .set("Cookie", cookie)
      .send({ name: "Reader", scopes: ["read"] });
    expect((await request(app).get("/api/audit").set("Authorization", `Bearer ${reader.body.token}`)).status).toBe(403);
    const admin = await request(app)
      .post("/api/workspace/tokens")
      .set("Cookie", cookie)
      .send({ name: "Auditor", scopes: ["admin"] });
    const byToken = await request(app).get("/api/audit").set("Authorization", `Bearer ${admin.body.token}`);
    expect(byToken.status).toBe(200);
    expect(byToken.body.items.length).toBeGreaterThan(0);

    // Another workspace's owner sees only their own rows, even when filtering by this one's objects.
    const other = await createTestUser("audit-other");
    const otherCookie = (await login(app, other.email)).cookie;
    const theirs = await request(app)
      .post("/api/credentials")
      .set("Cookie", otherCookie)
      .send({ name: "Theirs", type: "bearer", data: { token: secret } });
    expect(theirs.status).toBe(201);
    // Its own login and its own credential, nothing else.
    const seen = await request(app).get("/api/audit?limit=200").set("Cookie", otherCookie);
    expect(
      seen.body.items.map((event: { action: string; object: { id: string } }) => [event.action, event.object?.id]),
    ).toEqual([
      ["credential.created", theirs.body.id],
      ["auth.login_succeeded", other.user.id],
    ]);
    const mine = await request(app).get(`/api/audit?object=${theirs.body.id}`).set("Cookie", cookie);
    expect(mine.body.items).toEqual([]);
  });

  it("has no route that changes or deletes a row", async () => {
    const [row] = await rows();
    for (const method of ["put", "patch", "delete"] as const) {
      const res = await request(app)[method](`/api/audit/${row!.id}`).set("Cookie", cookie).send({});
      expect(res.status).toBe(404);
    }
    expect(await testPrisma().auditEvent.findUnique({ where: { id: row!.id } })).not.toBeNull();
  });

  it("keeps a row as written: an UPDATE changes nothing (append-only)", async () => {
    const [row] = await rows();
    expect(row).toBeDefined();
    const changed = await testPrisma().$executeRaw`UPDATE audit_events SET action = 'x.y' WHERE id = ${row!.id}`;
    expect(changed).toBe(0);
    expect((await testPrisma().auditEvent.findUnique({ where: { id: row!.id } }))?.action).toBe(row!.action);
  });
});
