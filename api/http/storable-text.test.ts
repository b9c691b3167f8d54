import request from "supertest";
import { describe, expect, it } from "vitest";
import { testPrisma } from "../../test/helpers/context.js";
import { createTestUser, login, makeTestApps } from "../../test/helpers/identity.js";
import { findUnstorableText } from "./storable-text.js";

const appFor = makeTestApps();

describe("findUnstorableText", () => {
  it("names the first NUL character or unpaired surrogate, in values and keys", () => {
    expect(findUnstorableText({ input: { note: "a\u0000b" } })).toBe("body.input.note");
    expect(findUnstorableText({ items: ["ok", "\ud83d"] })).toBe("body.items[1]");
    expect(findUnstorableText({ items: ["\ude00 alone"] })).toBe("body.items[0]");
    expect(findUnstorableText({ ["k\u0000"]: 1 })).toBe("body (a key)");
    expect(findUnstorableText({ q: "\u0000" }, "query")).toBe("query.q");
  });

  it("accepts ordinary text, emoji and other values, and deep nesting without recursion", () => {
    expect(findUnstorableText({ a: "héllo 😀", b: [1, true, null, { c: "\u0001" }] })).toBeUndefined();
    let deep: unknown = "fine";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findUnstorableText(deep)).toBeUndefined();
  });
});

describe("text PostgreSQL cannot store, sent to the API", () => {
  it("answers 400 unstorable_text naming the place (body, query, path), and stores nothing", async () => {
    const { app } = appFor();
    const user = await createTestUser("nul");
    const { cookie } = await login(app, user.email);
    const created = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .send({ name: "Target", definition: { nodes: [{ id: "start", type: "manual" }], edges: [] } });
    expect(created.status).toBe(201);
    const flowId = created.body.id as string;

    const answers = {
      "body.input.note": await request(app)
        .post(`/api/workflows/${flowId}/run`)
        .set("Cookie", cookie)
        .set("Content-Type", "application/json")
        .send('{"input":{"note":"a\\u0000b"}}'),
      "body.definition.nodes[0].position.label": await request(app)
        .post("/api/flows")
        .set("Cookie", cookie)
        .send({
          name: "NUL",
          definition: { nodes: [{ id: "start", type: "manual", position: { label: "x\u0000" } }], edges: [] },
        }),
      "query.run_id": await request(app).get("/api/logs?run_id=%00").set("Cookie", cookie),
      path: await request(app).get("/api/runs/run_%00").set("Cookie", cookie),
    };
    for (const [path, res] of Object.entries(answers)) {
      expect(res.status, path).toBe(400);
      expect(res.body, path).toMatchObject({
        code: "unstorable_text",
        error: expect.stringContaining("NUL"),
        details: [{ path }],
      });
    }
    expect(await testPrisma().run.count({ where: { flowId } })).toBe(0);
    expect(await testPrisma().flow.count({ where: { workspaceId: user.workspace.workspaceId } })).toBe(1);
  });
});
