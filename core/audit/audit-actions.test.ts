// Each sensitive action writes one audit row through the API, in the workspace acted in, with its
// actor (a person or an API token), its object, the names of what changed and never a value.
import type { Express } from "express";
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { testPrisma } from "../../test/helpers/context.js";
import { createTestUser, login, makeTestApps } from "../../test/helpers/identity.js";

const appFor = makeTestApps();

const definition = (message: string) => ({
  nodes: [
    { id: "start", type: "manual", position: { x: 0, y: 0 } },
    { id: "say", type: "log", config: { message } },
  ],
  edges: [{ from: "start", to: "say" }],
});

describe("audit log of sensitive actions", () => {
  let app: Express;
  let owner: Awaited<ReturnType<typeof createTestUser>>;
  let cookie: string;

  beforeAll(async () => {
    app = appFor().app;
    owner = await createTestUser("audit-actions");
    cookie = (await login(app, owner.email)).cookie;
  });

  const rows = (filter: { action?: string; objectId?: string } = {}) =>
    testPrisma().auditEvent.findMany({
      where: { workspaceId: owner.workspace.workspaceId, ...filter },
      orderBy: [{ at: "asc" }, { id: "asc" }],
    });

  it("records a flow's creation, saves (version and changed field names), activation, hook regeneration and deletion", async () => {
    const secretMessage = "flow-message-never-in-audit";
    const created = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .set("User-Agent", "audit-flows")
      .send({ name: "Audited", status: "inactive", definition: definition(secretMessage) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const saved = await request(app)
      .put(`/api/flows/${id}`)
      .set("Cookie", cookie)
      .send({ version: 1, definition: definition(`${secretMessage}-2`), description: "changed" });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.version).toBe(2);
    // An update that changes nothing writes nothing; a stale one is refused and writes nothing.
    expect((await request(app).put(`/api/flows/${id}`).set("Cookie", cookie).send({ version: 2 })).status).toBe(200);
    expect(
      (await request(app).put(`/api/flows/${id}`).set("Cookie", cookie).send({ version: 1, name: "x" })).status,
    ).toBe(409);
    const on = await request(app).put(`/api/flows/${id}`).set("Cookie", cookie).send({ version: 2, status: "active" });
    expect(on.status).toBe(200);
    const off = await request(app)
      .put(`/api/flows/${id}`)
      .set("Cookie", cookie)
      .send({ version: 2, status: "inactive" });
    expect(off.status).toBe(200);
    const before = await testPrisma().flow.findUniqueOrThrow({ where: { id } });
    const hook = await request(app).post(`/api/flows/${id}/hook/regenerate`).set("Cookie", cookie);
    expect(hook.status).toBe(200);
    const after = await testPrisma().flow.findUniqueOrThrow({ where: { id } });
    expect(after.hookToken).not.toBe(before.hookToken);
    const removed = await request(app).delete(`/api/flows/${id}`).set("Cookie", cookie);
    expect(removed.status).toBe(200);

    const written = await rows({ objectId: id });
    expect(written.map((row) => [row.action, row.details])).toEqual([
      ["flow.created", { name: "Audited", status: "inactive", version: 1 }],
      ["flow.updated", { name: "Audited", version: 2, changed: ["definition", "description"] }],
      ["flow.activated", { name: "Audited", version: 2, status: "active" }],
      ["flow.deactivated", { name: "Audited", version: 2, status: "inactive" }],
      ["flow.hook_regenerated", { name: "Audited" }],
      ["flow.deleted", { name: "Audited", version: 2, cancelled_runs: 0 }],
    ]);
    for (const row of written)
      expect(row).toMatchObject({ actorKind: "person", actorId: owner.user.id, objectKind: "flow" });
    expect(written[0]!.userAgent).toBe("audit-flows");
    const text = JSON.stringify(written);
    expect(text).not.toContain(secretMessage);
    for (const token of [before.hookToken, after.hookToken]) expect(text).not.toContain(token!);
  });

  it("records a flow saved by an API token as the token", async () => {
    const made = await request(app)
      .post("/api/workspace/tokens")
      .set("Cookie", cookie)
      .send({ name: "Deployer", scopes: ["write"] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const created = await request(app)
      .post("/api/flows")
      .set("Authorization", `Bearer ${made.body.token}`)
      .send({ name: "By token", definition: definition("x") });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const written = await rows({ objectId: created.body.id });
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({
      action: "flow.created",
      actorKind: "token",
      actorId: made.body.id,
      actorLabel: "Deployer",
    });
    expect(JSON.stringify(written)).not.toContain(made.body.token);
  });
});
