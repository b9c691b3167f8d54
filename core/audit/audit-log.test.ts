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

  it("keeps a row as written: an UPDATE changes nothing (append-only)", async () => {
    const [row] = await rows();
    expect(row).toBeDefined();
    const changed = await testPrisma().$executeRaw`UPDATE audit_events SET action = 'x.y' WHERE id = ${row!.id}`;
    expect(changed).toBe(0);
    expect((await testPrisma().auditEvent.findUnique({ where: { id: row!.id } }))?.action).toBe(row!.action);
  });
});
