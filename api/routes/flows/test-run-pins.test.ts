// Pinned data and "run to here" in POST /api/flows/{id}/test-runs, against the real API, worker,
// Temporal and PostgreSQL: a pinned HTTP node is never called (a local server counts its calls by
// path) while an unpinned one is called once, the pinned output is what the next node reads; "run
// to here" runs the node and its ancestors only; a production run of the same flow knows no pins
// and calls both; pins naming no node or a trigger are refused.
import type { IncomingMessage, ServerResponse } from "node:http";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLoopbackServer, type LoopbackServer } from "../../../test/helpers/loopback-server.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const h = useRunHarness({ config: { EGRESS_ALLOWLIST: "127.0.0.1", TEST_RUN_RATE_LIMIT: "100" } });

const calls = new Map<string, number>();
let upstream: LoopbackServer;
beforeAll(async () => {
  upstream = await startLoopbackServer((req: IncomingMessage, res: ServerResponse) => {
    calls.set(req.url ?? "", (calls.get(req.url ?? "") ?? 0) + 1);
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ amount: 5 }));
  });
});
afterAll(() => upstream?.close());

/** start → pinned (HTTP) → live (HTTP) → done (set), and a branch start → other (set). */
const definition = () =>
  flow(
    [
      { id: "pinned", type: "http_request", config: { url: `${upstream.url}/pinned` } },
      { id: "live", type: "http_request", config: { url: `${upstream.url}/live` } },
      {
        id: "done",
        type: "set",
        config: { fields: { pinned: "{{ nodes.pinned.body.amount }}", live: "{{ nodes.live.body.amount }}" } },
      },
      { id: "other", type: "set", config: { fields: { other: true } } },
    ],
    [
      ["start", "pinned"],
      ["pinned", "live"],
      ["live", "done"],
      ["start", "other"],
    ],
  );

const pins = { pinned: { output: { status: 200, headers: {}, body: { amount: 99 } } } };

async function createFlow(): Promise<string> {
  const res = await request(h.app)
    .post("/api/flows")
    .set("Cookie", h.cookie)
    .send({ name: "Pinned", status: "active", definition: definition() });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

const testRun = (flowId: string, body: object) =>
  request(h.app).post(`/api/flows/${flowId}/test-runs`).set("Cookie", h.cookie).send(body);

async function ended(res: request.Response) {
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const run = await h.waitForEnd(res.body.run_id as string);
  expect(run.status, JSON.stringify(run)).toBe("success");
  return { run, steps: await h.steps(res.body.run_id as string) };
}

describe("pinned data and run to here", () => {
  it("never calls a pinned node; the unpinned one is called once and the pin is what follows reads", async () => {
    const flowId = await createFlow();
    calls.clear();
    const { run, steps } = await ended(await testRun(flowId, { definition: definition(), pins }));
    expect(calls.get("/pinned") ?? 0).toBe(0);
    expect(calls.get("/live")).toBe(1);
    expect(run.test).toBe(true);
    expect(steps.find((step) => step.node_id === "done")?.output).toEqual({ pinned: 99, live: 5 });

    // Production knows no pins: a run of the saved flow calls both.
    calls.clear();
    const started = await h.startRun(flowId, {});
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    expect((await h.waitForEnd(started.body.run_id as string)).status).toBe("success");
    expect(calls.get("/pinned")).toBe(1);
    expect(calls.get("/live")).toBe(1);
  });

  it("runs to here: the node and its ancestors only, pinned ones not executed", async () => {
    const flowId = await createFlow();
    calls.clear();
    // The saved definition (no draft sent), up to "live".
    const { steps } = await ended(await testRun(flowId, { pins, until: "live" }));
    expect(steps.map((step) => step.node_id).sort()).toEqual(["live", "pinned", "start"]);
    expect(calls.get("/pinned") ?? 0).toBe(0);
    expect(calls.get("/live")).toBe(1);
  });

  it("refuses a pin or until naming no node, and a pinned trigger (400)", async () => {
    const flowId = await createFlow();
    const cases = [
      { pins: { ghost: { output: 1 } } },
      { until: "ghost" },
      { pins: { start: { output: {} } } },
      { pins: { pinned: { output: 1, extra: true } } },
    ];
    for (const body of cases) {
      const res = await testRun(flowId, { definition: definition(), ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof res.body.error).toBe("string");
      expect(typeof res.body.code).toBe("string");
    }
  });
});
