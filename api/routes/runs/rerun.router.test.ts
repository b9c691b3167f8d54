// POST /api/runs/{id}/rerun against the real API, worker, Temporal and PostgreSQL, with a local
// HTTP server standing in for the upstream API whose field was renamed: what a rerun carries over
// is never called again, what it runs again is.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestUser, joinWorkspace, login } from "../../../test/helpers/identity.js";
import { testPrisma } from "../../../test/helpers/context.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

/** The upstream API: it renamed `amount` to `amount_cents`; it counts the calls per order. */
const upstream = { calls: [] as string[], server: undefined as Server | undefined, url: "" };
beforeAll(async () => {
  upstream.server = createServer((req, res) => {
    upstream.calls.push(req.url ?? "");
    const order = new URL(req.url ?? "/", "http://x").searchParams.get("order");
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ order, amount_cents: 120 }));
  });
  await new Promise<void>((resolve) => upstream.server!.listen(0, "127.0.0.1", resolve));
  upstream.url = `http://127.0.0.1:${(upstream.server!.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => upstream.server?.close(() => resolve())));

const h = useRunHarness({ config: { EGRESS_ALLOWLIST: "127.0.0.1" } });

/** trigger → fetch (the upstream API) → compute (code reading `field`) → done. */
const orderFlow = (field: string, extra: { fetchType?: string } = {}) =>
  flow(
    [
      {
        id: "fetch",
        type: extra.fetchType ?? "http_request",
        config: extra.fetchType ? { value: "not a call" } : { url: `${upstream.url}/orders?order={{ input.order }}` },
      },
      {
        id: "compute",
        type: "code",
        config: {
          code: `if (input.body.${field} === undefined) throw new Error("no ${field} in the answer"); return { total: input.body.${field} * 2 };`,
        },
      },
      { id: "done", type: "test_echo", config: { value: "{{ nodes.compute.total }}" } },
    ],
    [
      ["start", "fetch"],
      ["fetch", "compute"],
      ["compute", "done"],
    ],
  );

const callsFor = (order: string) => upstream.calls.filter((url) => url.endsWith(`order=${order}`)).length;

async function saveVersion(flowId: string, definition: object): Promise<number> {
  const current = await request(h.app).get(`/api/flows/${flowId}`).set("Cookie", h.cookie);
  const res = await request(h.app)
    .put(`/api/flows/${flowId}`)
    .set("Cookie", h.cookie)
    .send({ version: current.body.version, definition });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.version as number;
}

const rerun = (runId: string, body: object, cookie = h.cookie) =>
  request(h.app).post(`/api/runs/${runId}/rerun`).set("Cookie", cookie).send(body);

async function rerunToEnd(runId: string, body: object) {
  const res = await rerun(runId, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.rerun_of).toBe(runId);
  return h.waitForEnd(res.body.run_id);
}

describe("POST /api/runs/{id}/rerun", () => {
  it("reruns on the fixed version from the failed node without calling the carried-over HTTP node again", async () => {
    const flowId = await h.createFlow(orderFlow("amount"), "Orders");
    const failed = await h.runToEnd(flowId, { order: "a1" });
    expect(failed.status).toBe("failed");
    expect(callsFor("a1")).toBe(1);

    // On the run's own version it fails again, the HTTP node carried over.
    const again = await rerunToEnd(failed.id, { from_failed: true });
    expect(again.status).toBe("failed");
    expect(again.version).toBe(1);
    expect(callsFor("a1")).toBe(1);

    const fixed = await saveVersion(flowId, orderFlow("amount_cents"));
    const res = await rerun(failed.id, { from_failed: true, version: "latest" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.version).toBe(fixed);
    const run = await h.waitForEnd(res.body.run_id);
    expect(run.status).toBe("success");
    expect(run.output).toMatchObject({ value: 240 });
    expect(callsFor("a1")).toBe(1);
    expect(run).toMatchObject({
      trigger: "rerun",
      version: fixed,
      rerun_of: failed.id,
      rerun_from_node: null,
      retry_of: null,
      rerun: { from: "failed", version: "latest", of_version: 1, carried: ["start", "fetch"], overrides: null },
    });
    const steps = await h.steps(run.id);
    const carried = Object.fromEntries(steps.map((step) => [step.node_id, step.carried_over_from]));
    expect(carried).toEqual({ start: failed.id, fetch: failed.id, compute: null, done: null });
  });

  it("reruns from a node with an edited input: that node and what follows run again, once", async () => {
    const flowId = await h.createFlow(orderFlow("amount_cents"));
    const first = await h.runToEnd(flowId, { order: "b1" });
    expect(first.status).toBe("success");
    const run = await rerunToEnd(first.id, { from_node: "fetch", input: { order: "b2" } });
    expect(run.status).toBe("success");
    expect(run.rerun_from_node).toBe("fetch");
    // The trigger runs again on the new input; nothing is carried before fetch.
    expect(run.rerun).toMatchObject({ from: "node", carried: [], overrides: { input: { order: "b2" } } });
    expect([callsFor("b1"), callsFor("b2")]).toEqual([1, 1]);
    // From compute with a new input: fetch's recorded answer is carried (not called for b3).
    const later = await rerunToEnd(first.id, { from_node: "compute", input: { order: "b3" } });
    expect(later.rerun).toHaveProperty("carried", ["fetch"]);
    expect(callsFor("b3")).toBe(0);
    expect(later.output).toMatchObject({ value: 240 });
    // From the start: the whole flow again, with the run's own input.
    const whole = await rerunToEnd(first.id, {});
    expect(whole.rerun).toMatchObject({ from: "start", carried: [] });
    expect(callsFor("b1")).toBe(2);
  });

  it("replaces a carried node's output: the next node receives the correction, the HTTP node is not called", async () => {
    const flowId = await h.createFlow(orderFlow("amount_cents"));
    const first = await h.runToEnd(flowId, { order: "c1" });
    const marker = "override-marker-7f3a";
    const corrected = { status: 200, headers: {}, body: { order: "c1", amount_cents: 500, note: marker } };
    const run = await rerunToEnd(first.id, { from_node: "compute", outputs: { fetch: corrected } });
    expect(run.status).toBe("success");
    expect(run.output).toMatchObject({ value: 1000 });
    expect(callsFor("c1")).toBe(1);
    expect(run.rerun).toHaveProperty("overrides", { outputs: { fetch: corrected } });
    const fetchStep = (await h.steps(run.id)).find((step) => step.node_id === "fetch")!;
    expect(fetchStep.output).toEqual(corrected);
    // The overrides are sealed at rest, in the run's record as in the carried step's row.
    const stored = await testPrisma().$queryRaw<Array<{ rerun: string; steps: string }>>`
      SELECT r.rerun::text AS rerun, (SELECT string_agg(s.output::text, ' ') FROM run_steps s WHERE s.run_id = r.id) AS steps
      FROM runs r WHERE r.id = ${run.id}`;
    expect(stored[0]!.rerun).not.toContain(marker);
    expect(stored[0]!.steps).not.toContain(marker);

    // Outputs of nodes that run again, and references to stored data, are refused.
    const runsAgain = await rerun(first.id, { from_node: "compute", outputs: { done: {} } });
    expect(runsAgain.status).toBe(400);
    expect(runsAgain.body).toMatchObject({ code: "invalid_rerun_outputs", nodes: ["done"] });
    const reference = await rerun(first.id, {
      from_node: "compute",
      outputs: { fetch: { $blob: "blob_x", bytes: 1 } },
    });
    expect(reference.status).toBe(400);
    expect(reference.body.code).toBe("invalid_rerun_outputs");
    const both = await rerun(first.id, { from_node: "compute", from_failed: true });
    expect(both.status).toBe(400);
  });

  it("answers a repeat with the same Idempotency-Key with the run it started, and refuses the key for another body", async () => {
    const flowId = await h.createFlow(orderFlow("amount_cents"));
    const first = await h.runToEnd(flowId, { order: "k1" });
    const keyed = (body: object, key: string) =>
      request(h.app).post(`/api/runs/${first.id}/rerun`).set("Cookie", h.cookie).set("Idempotency-Key", key).send(body);
    const key = `rerun-${Date.now()}`;
    // Asked three times at once, then once more: one rerun.
    const answers = await Promise.all([1, 2, 3].map(() => keyed({ from_node: "fetch" }, key)));
    expect(answers.map((res) => res.status).sort()).toEqual([200, 200, 201]);
    expect(new Set(answers.map((res) => res.body.run_id)).size).toBe(1);
    const runId = answers[0]!.body.run_id as string;
    await h.waitForEnd(runId);
    const later = await keyed({ from_node: "fetch" }, key);
    expect([later.status, later.body.run_id, later.body.rerun_of]).toEqual([200, runId, first.id]);
    expect(await testPrisma().run.count({ where: { rerunOf: first.id } })).toBe(1);
    expect(callsFor("k1")).toBe(2);
    // The key with another body (or for another run) answers nothing of the rerun.
    const other = await keyed({ from_node: "compute" }, key);
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ error: expect.any(String), code: "idempotency_key_reused" });
    expect((await keyed({ from_node: "fetch" }, " bad key")).status).toBe(400);
  });

  it("answers 409 naming the nodes when the latest version no longer fits", async () => {
    const flowId = await h.createFlow(orderFlow("amount_cents"));
    const first = await h.runToEnd(flowId, { order: "d1" });
    // fetch becomes another type: its recorded output would not fit.
    await saveVersion(flowId, orderFlow("amount_cents", { fetchType: "test_echo" }));
    const changed = await rerun(first.id, { from_node: "compute", version: "latest" });
    expect(changed.status).toBe(409);
    expect(changed.body).toMatchObject({ code: "rerun_version_mismatch", nodes: ["fetch"] });
    const missing = await rerun(first.id, { from_node: "gone", version: "run" });
    expect(missing.status).toBe(409);
    expect(missing.body).toMatchObject({ code: "rerun_node_missing", nodes: ["gone"] });
    expect(missing.body.error).toContain("gone");
    // On the run's own version it still fits.
    expect((await rerunToEnd(first.id, { from_node: "compute" })).status).toBe("success");
    expect(callsFor("d1")).toBe(1);
  });

  it("refuses a running run, a viewer, and another workspace's member", async () => {
    const slow = await h.createFlow(
      flow([{ id: "wait", type: "delay", config: { duration: "1h" } }], [["start", "wait"]]),
    );
    const running = (await h.startRun(slow)).body.run_id as string;
    const refused = await rerun(running, {});
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("run_not_ended");
    await request(h.app).post(`/api/runs/${running}/cancel`).set("Cookie", h.cookie);
    await h.waitForEnd(running);

    const flowId = await h.createFlow(orderFlow("amount_cents"));
    const first = await h.runToEnd(flowId, { order: "e1" });
    const viewer = await joinWorkspace(h.app, h.cookie, await createTestUser("rerun-viewer"), "viewer");
    expect((await rerun(first.id, {}, viewer.cookie)).status).toBe(403);
    const stranger = await createTestUser("rerun-stranger");
    const { cookie } = await login(h.app, stranger.email);
    expect((await rerun(first.id, {}, cookie)).status).toBe(404);
    expect(callsFor("e1")).toBe(1);
  });
});
