// POST /api/flows/{id}/test-runs against the real API, worker, Temporal and PostgreSQL: a draft
// that was never saved runs once on an inactive flow as a test run; the flow stays inactive and
// unchanged, the draft's HTTP node calls a local server for real, and no outgoing webhook is
// delivered for the run (a local receiver counts). Then the refusals and the rate limit.
import request from "supertest";
import { describe, expect, it } from "vitest";
import { testPrisma } from "../../../test/helpers/context.js";
import { createTestUser, joinWorkspace, login } from "../../../test/helpers/identity.js";
import { useOutsideParties } from "../../../test/helpers/outside-parties.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const LIMIT = 4;
const CONFIG = {
  EGRESS_ALLOWLIST: "127.0.0.1",
  WEBHOOK_DISPATCH_INTERVAL: "100ms",
  TEST_RUN_RATE_LIMIT: String(LIMIT),
};

const h = useRunHarness({ config: CONFIG });
const outside = useOutsideParties(h, CONFIG, { amount_cents: 1250 });

const saved = flow([{ id: "done", type: "set", config: { fields: { saved: true } } }], [["start", "done"]]);
/** Built once the local server listens. */
const draft = () =>
  flow(
    [
      { id: "fetch", type: "http_request", config: { url: `${outside.upstreamUrl}/orders/{{ input.n }}` } },
      { id: "done", type: "set", config: { fields: { cents: "{{ nodes.fetch.body.amount_cents }}" } } },
    ],
    [
      ["start", "fetch"],
      ["fetch", "done"],
    ],
  );

const testRun = (flowId: string, body: object, cookie = h.cookie) =>
  request(h.app).post(`/api/flows/${flowId}/test-runs`).set("Cookie", cookie).send(body);

async function createFlow(status: "active" | "inactive" | "archived", name: string): Promise<string> {
  const res = await request(h.app).post("/api/flows").set("Cookie", h.cookie).send({ name, status, definition: saved });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

describe("test runs of a draft", () => {
  let flowId: string;

  it("runs an unsaved draft on an inactive flow as a test run: nothing saved or turned on, no webhook", async () => {
    const endpoint = await request(h.app)
      .post("/api/settings/webhooks")
      .set("Cookie", h.cookie)
      .send({ url: `${outside.receiverUrl}/hook` });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    flowId = await createFlow("inactive", "Orders draft");
    const before = await request(h.app).get(`/api/flows/${flowId}`).set("Cookie", h.cookie);

    const started = await testRun(flowId, { definition: draft(), input: { n: 7 } });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    expect(started.body).toMatchObject({ status: "running", test: true });
    expect(started.headers.location).toBe(`/api/runs/${started.body.run_id}`);
    const run = await h.waitForEnd(started.body.run_id);
    expect(run.status, JSON.stringify(run)).toBe("success");
    expect(run).toMatchObject({ test: true, trigger: "test", version: 1 });
    // The draft ran for real: its HTTP node called out, its set node used the answer.
    expect(outside.upstreamCalls).toBe(1);
    const steps = await h.steps(started.body.run_id);
    expect(steps.map((step) => [step.node_id, step.status])).toEqual([
      ["start", "success"],
      ["fetch", "success"],
      ["done", "success"],
    ]);
    expect(steps[2]!.output).toEqual({ cents: 1250 });

    // The flow is unchanged: still inactive, still version 1 with the saved definition.
    const after = await request(h.app).get(`/api/flows/${flowId}`).set("Cookie", h.cookie);
    expect(after.body).toEqual(before.body);
    expect(after.body.status).toBe("inactive");
    expect(await testPrisma().flowVersion.count({ where: { flowId } })).toBe(1);
    // A normal run of the inactive flow is still refused.
    expect((await h.startRun(flowId, {})).status).toBe(409);

    // No event was recorded for the test run, and no webhook delivered.
    const events = await testPrisma().event.findMany({ where: { workspaceId: h.workspaceId } });
    expect(events.filter((event) => JSON.stringify(event.payload).includes(started.body.run_id))).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(outside.delivered).toEqual([]);

    // Listed among test runs only.
    const tests = await request(h.app).get(`/api/runs?flow_id=${flowId}&test=true`).set("Cookie", h.cookie);
    expect(tests.body.items.map((item: { id: string }) => item.id)).toEqual([started.body.run_id]);
    const live = await request(h.app).get(`/api/runs?flow_id=${flowId}&test=false`).set("Cookie", h.cookie);
    expect(live.body.items).toEqual([]);
  }, 60_000);

  it("runs the saved definition when no draft is given", async () => {
    const started = await testRun(flowId, {});
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const run = await h.waitForEnd(started.body.run_id);
    expect(run.status).toBe("success");
    expect(run.output).toEqual({ saved: true });
    expect(outside.upstreamCalls).toBe(1);
  }, 30_000);

  it("refuses viewers (403), other workspaces (404), archived flows (409), bad drafts and inputs (400)", async () => {
    const runsBefore = await testPrisma().run.count({ where: { flowId } });
    const bad = await testRun(flowId, { definition: { nodes: [{ id: "x", type: "no_such_type" }], edges: [] } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBeTruthy();
    const badInput = await testRun(flowId, { input: "not an object" });
    expect(badInput.status).toBe(400);
    const tooLarge = await testRun(flowId, { input: { text: "x".repeat(300 * 1024) } });
    expect(tooLarge.status).toBe(400);
    expect((await testRun(flowId, { extra: true })).status).toBe(400);

    const viewer = await joinWorkspace(h.app, h.cookie, await createTestUser("test-run-viewer"), "viewer");
    const refused = await testRun(flowId, {}, viewer.cookie);
    expect(refused.status).toBe(403);

    const stranger = await createTestUser("test-run-stranger");
    const { cookie } = await login(h.app, stranger.email);
    const foreign = await testRun(flowId, {}, cookie);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });

    const archived = await createFlow("archived", "Old");
    const gone = await testRun(archived, {});
    expect(gone.status).toBe(409);
    expect(gone.body.code).toBe("flow_not_active");

    // A draft chooses what is called and with which credential, as a saved flow does: a token
    // needs `write` as well as `run`, as saving one and running it does; `run` alone runs only what
    // was saved (and tests no node either).
    const token = async (scopes: string[]) =>
      (
        await request(h.app)
          .post("/api/workspace/tokens")
          .set("Cookie", h.cookie)
          .send({ name: scopes.join("+"), scopes })
      ).body.token as string;
    const runner = await token(["read", "run"]);
    const byRunner = await request(h.app)
      .post(`/api/flows/${flowId}/test-runs`)
      .set("Authorization", `Bearer ${runner}`)
      .send({ definition: draft() });
    expect(byRunner.status).toBe(403);
    expect(byRunner.body).toMatchObject({ code: "insufficient_scope", required_scope: "write" });
    const nodeTest = await request(h.app)
      .post("/api/nodes/test")
      .set("Authorization", `Bearer ${runner}`)
      .send({ type: "set", config: { fields: { a: 1 } } });
    expect(nodeTest.body).toMatchObject({ code: "insufficient_scope", required_scope: "write" });
    // `write` alone does not start it either: it needs both, as saving a flow and running it does.
    const testRunAs = (bearer: string, id: string) =>
      request(h.app).post(`/api/flows/${id}/test-runs`).set("Authorization", `Bearer ${bearer}`).send({});
    const byWriter = await testRunAs(await token(["write"]), archived);
    expect(byWriter.body).toMatchObject({ code: "insufficient_scope", required_scope: "run" });
    // A token with both passes the scopes (and meets the archived flow's refusal, which starts nothing).
    expect((await testRunAs(await token(["write", "run"]), archived)).body.code).toBe("flow_not_active");
    expect(await testPrisma().run.count({ where: { flowId: { in: [flowId, archived] } } })).toBe(runsBefore);
  });

  it("limits a workspace's test runs a minute (TEST_RUN_RATE_LIMIT)", async () => {
    // Two test runs counted already; a minute's window may turn over once during the loop.
    let refused: request.Response | undefined;
    for (let attempt = 0; attempt < 2 * LIMIT + 2 && !refused; attempt++) {
      const res = await testRun(flowId, {});
      if (res.status === 429) refused = res;
      else expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    expect(refused?.body).toMatchObject({ code: "rate_limited" });
    expect(Number(refused?.headers["retry-after"])).toBeGreaterThan(0);
  }, 60_000);
});
