// POST /api/nodes/test against a real worker: one node's behaviour on a sample input, nothing
// recorded.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { testPrisma } from "../../../test/helpers/context.js";
import { exportedHistory } from "../../../test/helpers/histories.js";
import { createTestUser, login } from "../../../test/helpers/identity.js";
import { startLoopbackServer } from "../../../test/helpers/loopback-server.js";
import { useRunHarness } from "../../../test/helpers/runs.js";

const h = useRunHarness({ config: { EGRESS_ALLOWLIST: "127.0.0.1" } });
const test = (body: object, cookie = h.cookie) =>
  request(h.app).post("/api/nodes/test").set("Cookie", cookie).send(body);

describe("testing one node", () => {
  it("runs a node's config, templates rendered against the sample input, and answers its output; nothing is recorded", async () => {
    const runsBefore = await testPrisma().run.count({ where: { workspaceId: h.workspaceId } });
    const res = await test({
      type: "set",
      node_id: "shape",
      config: { fields: { "customer.name": "{{ input.name }}", total: "{{ input.price }}" } },
      input: { name: "Ada", price: 21 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      test_id: expect.stringMatching(/^nodetest_[0-9a-f]{32}$/),
      status: "success",
      output: { customer: { name: "Ada" }, total: 21 },
      branch: null,
      error: null,
      logs: [],
      duration_ms: expect.any(Number),
    });
    expect(await testPrisma().run.count({ where: { workspaceId: h.workspaceId } })).toBe(runsBefore);
    if (process.env.RECORD_HISTORY === "1") {
      const fixture = new URL("../../../worker/workflows/histories/node-test.testNode.set.json", import.meta.url);
      // Stack traces name the checkout: written as /app, as in the other fixtures.
      const checkout = fileURLToPath(new URL("../../../", import.meta.url));
      const json = JSON.stringify(JSON.parse(await exportedHistory(h.deps.temporal, res.body.test_id)), null, 2);
      writeFileSync(fixture, `${json.replaceAll(checkout, "/app/")}\n`);
    }
  });

  it("answers a condition's branch, a code node's console as logs, and a failure as failed with its message", async () => {
    const decided = await test({
      type: "condition",
      config: { left: "{{ input.status }}", operator: "equals", right: 200 },
      input: { status: 200 },
    });
    expect(decided.body).toMatchObject({ status: "success", branch: "true" });

    const code = await test({
      type: "code",
      config: { code: "console.log('seen', input.n); return { double: input.n * 2 };" },
      input: { n: 4 },
    });
    expect(code.status).toBe(200);
    expect(code.body).toMatchObject({ status: "success", output: { double: 8 } });
    expect(JSON.stringify(code.body.logs)).toContain("seen");

    const thrown = await test({ type: "code", config: { code: "throw new Error('no such customer')" }, input: {} });
    expect(thrown.body).toMatchObject({
      status: "failed",
      output: null,
      error: { message: expect.stringMatching(/no such customer/) },
    });

    const badConfig = await test({ type: "code", config: {}, input: {} });
    expect(badConfig.body).toMatchObject({
      status: "failed",
      error: { type: "NodeConfigError", message: expect.stringMatching(/code/) },
    });
  });

  it("calls what an http_request node names, as a run would", async () => {
    const seen: string[] = [];
    const remote = await startLoopbackServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(200, { "Content-Type": "application/json" }).end('{"ok":true}');
    });
    try {
      const res = await test({
        type: "http_request",
        config: { url: `${remote.url}/orders/{{ input.id }}`, method: "GET" },
        input: { id: 7 },
      });
      expect(res.body).toMatchObject({ status: "success", output: { status: 200, body: { ok: true } } });
      expect(seen).toEqual(["GET /orders/7"]);
    } finally {
      remote.close();
    }
  });

  it("refuses node types that wait or start runs, unknown types, bad bodies and viewers", async () => {
    for (const type of ["delay", "wait", "loop", "flow.call"]) {
      const res = await test({ type, config: {}, input: {} });
      expect([res.status, res.body.code], type).toEqual([400, "node_not_testable"]);
    }
    const unknown = await test({ type: "no_such_node", config: {} });
    expect([unknown.status, unknown.body.code]).toEqual([400, "unknown_node_type"]);
    const bad = await test({ type: "set", config: "fields" });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("validation_failed");

    const viewer = await createTestUser("node-test-viewer");
    await testPrisma().membership.create({
      data: { userId: viewer.user.id, workspaceId: h.workspaceId, role: "viewer" },
    });
    const { cookie } = await login(h.app, viewer.email, undefined, { workspaceId: h.workspaceId });
    const refused = await test({ type: "set", config: { fields: { a: 1 } } }, cookie);
    expect(refused.status).toBe(403);
  });
});
