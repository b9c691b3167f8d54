// A hook trigger's test address through the API: opened by the flow's workspace only, captures the
// next request once (cookies and authorization stripped, no run started), then 404; an expired
// address is 404; a body over HOOK_MAX_BODY_BYTES is 413 and captures nothing.
import type { Express } from "express";
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { testPrisma } from "../../../test/helpers/context.js";
import { createTestUser, login, makeTestApps } from "../../../test/helpers/identity.js";

const appFor = makeTestApps();
const MAX_BODY = 2_048;

describe("hook test listen", () => {
  let app: Express;
  let cookie: string;
  let otherCookie: string;
  let flowId: string;

  beforeAll(async () => {
    app = appFor({ HOOK_MAX_BODY_BYTES: String(MAX_BODY) }).app;
    cookie = (await login(app, (await createTestUser("hook-test")).email)).cookie;
    otherCookie = (await login(app, (await createTestUser("hook-test-other")).email)).cookie;
    const definition = { nodes: [{ id: "hook", type: "http_trigger", config: {} }], edges: [] };
    const created = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .send({ name: "Hooked", status: "active", definition });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    flowId = created.body.id as string;
  });

  const open = (who = cookie) => request(app).post(`/api/flows/${flowId}/hook/test-listen`).set("Cookie", who);
  const poll = (id: string, who = cookie) =>
    request(app).get(`/api/flows/${flowId}/hook/test-listen/${id}`).set("Cookie", who);

  it("captures the next request once, credentials stripped, starting no run", async () => {
    const opened = await open();
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    expect(opened.body.test_path).toMatch(/^\/api\/hooks\/test\/[A-Za-z0-9_-]{43}$/);
    expect((await poll(opened.body.id)).body).toMatchObject({ status: "listening", captured: null });

    const call = await request(app)
      .post(`${opened.body.test_path}?source=test`)
      .set("Cookie", "sid=secret-cookie")
      .set("Authorization", "Bearer secret-token")
      .set("X-Order", "7")
      .send({ amount: 120 });
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body).toEqual({ captured: true });
    expect(JSON.stringify(call.body)).not.toContain("secret");

    const again = await request(app).post(opened.body.test_path).send({ amount: 1 });
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: "test_listen_not_found" });

    const view = await poll(opened.body.id);
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({
      status: "captured",
      captured: { method: "POST", query: { source: "test" }, body: { amount: 120 }, headers: { "x-order": "7" } },
    });
    expect(JSON.stringify(view.body)).not.toMatch(/secret-cookie|secret-token/);
    expect(await testPrisma().run.count({ where: { flowId } })).toBe(0);
  });

  it("refuses an expired address, an oversized body and another workspace", async () => {
    const opened = await open();
    expect(opened.status).toBe(201);
    const big = await request(app)
      .post(opened.body.test_path)
      .set("Content-Type", "application/json")
      .send(JSON.stringify({ pad: "x".repeat(MAX_BODY) }));
    expect(big.status).toBe(413);
    expect((await poll(opened.body.id)).body.status).toBe("listening");

    await testPrisma().hookTestListen.update({ where: { id: opened.body.id }, data: { expiresAt: new Date(0) } });
    const late = await request(app).post(opened.body.test_path).send({ amount: 1 });
    expect(late.status).toBe(404);
    expect((await poll(opened.body.id)).body.status).toBe("expired");

    expect((await open(otherCookie)).status).toBe(404);
    expect((await poll(opened.body.id, otherCookie)).status).toBe(404);
    expect((await request(app).post(`/api/flows/${flowId}/hook/test-listen`)).status).toBe(401);
  });
});
