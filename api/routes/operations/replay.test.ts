// POST /api/flows/{id}/replay against the real API, worker, Temporal and PostgreSQL: a flow
// (trigger → HTTP call to a local server that counts calls → a transform → set) has run 3 times;
// replayed on a draft whose transform changed, only that node shows changed, the local server sees
// no call, and no outgoing webhook is delivered for the replay runs (a local receiver counts).
import request from "supertest";
import { describe, expect, it } from "vitest";
import { testPrisma } from "../../../test/helpers/context.js";
import { createTestUser, joinWorkspace, login } from "../../../test/helpers/identity.js";
import { useOutsideParties } from "../../../test/helpers/outside-parties.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const CONFIG = { EGRESS_ALLOWLIST: "127.0.0.1", WEBHOOK_DISPATCH_INTERVAL: "100ms", REPLAY_MAX_RUNS: "20" };

const h = useRunHarness({ config: CONFIG });
const outside = useOutsideParties(h, CONFIG, { amount_cents: 1250 });

const orderFlow = (expression: string) =>
  flow(
    [
      { id: "fetch", type: "http_request", config: { url: `${outside.upstreamUrl}/orders/{{ input.n }}` } },
      { id: "shape", type: "transform", config: { expression } },
      { id: "done", type: "set", config: { fields: { done: true } } },
    ],
    [
      ["start", "fetch"],
      ["fetch", "shape"],
      ["shape", "done"],
    ],
  );

type ReplayRun = {
  run_id: string;
  replay_run_id: string | null;
  status: string | null;
  error: string | null;
  counts: Record<string, number>;
  nodes: Array<{ node_id: string; result: string; output?: unknown; recorded_output?: unknown }>;
};
type Operation = { kind: string; status: string; total: number; request: object; replay: ReplayRun[] };

const replay = (flowId: string, body: object, cookie = h.cookie) =>
  request(h.app).post(`/api/flows/${flowId}/replay`).set("Cookie", cookie).send(body);

/** Polls the operation until every replay run has ended (at most 60 s). */
async function replayEnded(id: string): Promise<Operation> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await request(h.app).get(`/api/operations/${id}`).set("Cookie", h.cookie);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const operation = res.body as Operation;
    const ended = operation.replay.every((run) => run.status !== null && run.status !== "running");
    if (operation.status === "completed" && ended) return operation;
    if (Date.now() > deadline) throw new Error(`operation ${id} still ${JSON.stringify(operation)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Waits until the receiver has had `count` deliveries (at most 20 s). */
async function deliveredAtLeast(count: number) {
  const deadline = Date.now() + 20_000;
  while (outside.delivered.length < count) {
    if (Date.now() > deadline) throw new Error(`only ${outside.delivered.length} of ${count} webhooks delivered`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("replay against a draft", () => {
  let flowId: string;
  let recorded: string[];

  it("shows changed on the changed transform only, calls nothing outside and delivers no webhook", async () => {
    const endpoint = await request(h.app)
      .post("/api/settings/webhooks")
      .set("Cookie", h.cookie)
      .send({ url: `${outside.receiverUrl}/hook` });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);

    flowId = await h.createFlow(orderFlow(`{ "total": body.amount_cents }`), "Orders");
    recorded = [];
    for (let n = 0; n < 3; n++) {
      const run = await h.runToEnd(flowId, { n });
      expect(run.status).toBe("success");
      recorded.push(run.id);
    }
    expect(outside.upstreamCalls).toBe(3);
    // run.started and run.completed of each run reach the receiver.
    await deliveredAtLeast(6);

    const asked = await replay(flowId, { definition: orderFlow(`{ "total": body.amount_cents / 100 }`), last: 3 });
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    expect(asked.body).toMatchObject({ status: "running", total: 3, version: 1 });
    expect(asked.headers.location).toBe(`/api/operations/${asked.body.operation_id}`);
    const operation = await replayEnded(asked.body.operation_id);
    expect(operation).toMatchObject({
      kind: "replay",
      total: 3,
      request: { flow_id: flowId, version: 1, draft: true },
    });

    expect(operation.replay.map((run) => run.run_id)).toEqual(recorded);
    for (const run of operation.replay) {
      expect(run.status).toBe("success");
      expect(run.nodes).toEqual([
        { node_id: "start", result: "same" },
        { node_id: "fetch", result: "same" },
        { node_id: "shape", result: "changed", output: { total: 12.5 }, recorded_output: { total: 1250 } },
        { node_id: "done", result: "same" },
      ]);
      expect(run.counts).toMatchObject({ same: 3, changed: 1, new: 0, failed: 0, missing: 0 });
    }
    // The local server saw no call during the replay.
    expect(outside.upstreamCalls).toBe(3);

    // The replay runs are test runs: marked, and left out of the runs list on asking.
    const replayIds = operation.replay.map((run) => run.replay_run_id!);
    const rows = await testPrisma().run.findMany({ where: { id: { in: replayIds } } });
    expect(rows.every((row) => row.test && row.trigger === "replay")).toBe(true);
    const listed = await request(h.app).get(`/api/runs?flow_id=${flowId}&test=false`).set("Cookie", h.cookie);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((item: { id: string }) => item.id).sort()).toEqual([...recorded].sort());
    const tests = await request(h.app).get(`/api/runs?flow_id=${flowId}&test=true`).set("Cookie", h.cookie);
    expect(tests.body.items.map((item: { id: string }) => item.id).sort()).toEqual([...replayIds].sort());

    // No event was recorded for them, and the receiver got nothing more (the dispatcher passes every 100 ms).
    const events = await testPrisma().event.findMany({ where: { workspaceId: h.workspaceId } });
    expect(events.filter((event) => replayIds.some((id) => JSON.stringify(event.payload).includes(id)))).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(outside.delivered).toHaveLength(6);
    expect(outside.delivered.some((body) => replayIds.some((id) => body.includes(id)))).toBe(false);

    // The dashboard's figures count the recorded runs only.
    const metrics = await request(h.app).get("/api/metrics").set("Cookie", h.cookie);
    expect(metrics.status).toBe(200);
    expect(metrics.body.runs.last_hour).toMatchObject({ total: 3, success: 3 });

    // A test run is not rerun.
    const rerun = await request(h.app)
      .post(`/api/runs/${replayIds[0]}/rerun`)
      .set("Cookie", h.cookie)
      .send({ from_failed: true, version: "run" });
    expect(rerun.status).toBe(409);
    expect(rerun.body.code).toBe("run_is_test");
  }, 120_000);

  it("fails a node that reaches outside with no recording, never calling out; the current version when no draft", async () => {
    const draft = orderFlow(`{ "total": body.amount_cents }`);
    draft.nodes.push({ id: "notify", type: "http_request", config: { url: `${outside.upstreamUrl}/notify` } });
    draft.edges.push({ from: "done", to: "notify" });
    const asked = await replay(flowId, { definition: draft, ids: [recorded[0]] });
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    const [run] = (await replayEnded(asked.body.operation_id)).replay;
    expect(run).toMatchObject({ run_id: recorded[0], status: "failed" });
    expect(run!.error).toContain("replay_no_recording");
    expect(run!.nodes.find((node) => node.node_id === "notify")).toEqual({ node_id: "notify", result: "failed" });
    expect(run!.nodes.filter((node) => node.result === "same").map((node) => node.node_id)).toEqual([
      "start",
      "fetch",
      "shape",
      "done",
    ]);
    expect(outside.upstreamCalls).toBe(3);

    // No definition: the flow's current version, the same everywhere.
    const current = await replay(flowId, { ids: [recorded[1]] });
    expect(current.status).toBe(202);
    const [same] = (await replayEnded(current.body.operation_id)).replay;
    expect(same!.counts).toMatchObject({ same: 4, changed: 0, failed: 0 });
    expect(outside.upstreamCalls).toBe(3);
  }, 60_000);

  it("refuses viewers (403), other workspaces (404), too many runs (400) and a bad draft (400)", async () => {
    const tooMany = await replay(flowId, { last: 21 });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ code: "replay_too_large", max: 20 });
    const tooManyIds = await replay(flowId, { ids: Array.from({ length: 21 }, () => recorded[0]) });
    expect(tooManyIds.status).toBe(400);
    expect((await replay(flowId, { last: 2, ids: [recorded[0]] })).status).toBe(400);
    const bad = await replay(flowId, { definition: { nodes: [{ id: "x", type: "no_such_type" }], edges: [] } });
    expect(bad.status).toBe(400);

    const viewer = await joinWorkspace(h.app, h.cookie, await createTestUser("replay-viewer"), "viewer");
    const refused = await replay(flowId, { last: 1 }, viewer.cookie);
    expect(refused.status).toBe(403);
    // Viewers read a replay's results.
    const operation = await testPrisma().operation.findFirst({ where: { workspaceId: h.workspaceId, kind: "replay" } });
    const read = await request(h.app).get(`/api/operations/${operation!.id}`).set("Cookie", viewer.cookie);
    expect(read.status).toBe(200);

    const stranger = await createTestUser("replay-stranger");
    const { cookie } = await login(h.app, stranger.email);
    const foreign = await replay(flowId, { last: 1 }, cookie);
    expect(foreign.status).toBe(404);
    expect((await request(h.app).get(`/api/operations/${operation!.id}`).set("Cookie", cookie)).status).toBe(404);
    expect(await testPrisma().operation.count({ where: { workspaceId: h.workspaceId, kind: "replay" } })).toBe(3);
  });
});
