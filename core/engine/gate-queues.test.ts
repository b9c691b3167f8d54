// Queue depth and waiting time per flow and key for operators, on the dev server: three runs of one
// key at a concurrency limit of 1 leave two waiting at the flow's gate; the reading and the API's
// gauges (svc_runs_queued, svc_runs_queued_oldest_seconds per flow, svc_gate_runs_queued and
// svc_gate_queued_oldest_seconds per gate) show them under the flow and its gate, the flow's queue
// (GET /api/flows/{id}/queue) under its key, a flow without waiting runs is absent, and once the
// runs are cancelled nothing waits.
import request from "supertest";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { systemClock } from "../../lib/clock.js";
import { registerQueueGauges } from "../../lib/operator-metrics.js";
import { testPrisma } from "../../test/helpers/context.js";
import { flow, useRunHarness } from "../../test/helpers/runs.js";
import { readGateQueues, readGates } from "./gate-queues.js";
import { concurrencyGateId } from "./concurrency-gates.js";

const h = useRunHarness();
const sleeper = (settings: object) => ({
  ...flow([{ id: "nap", type: "test_sleep", config: { ms: 60_000 } }], [["start", "nap"]]),
  ...settings,
});

describe("queue depth and waiting time per flow", () => {
  it("counts the runs waiting at a flow's gates and the oldest one's wait, and nothing once they are cancelled", async () => {
    const deps = { temporal: h.deps.temporal, prisma: testPrisma(), clock: systemClock };
    const gated = await h.createFlow(sleeper({ concurrency: { limit: 1, key: "{{ input.customer }}" } }));
    const free = await h.createFlow(sleeper({ concurrency: { limit: 5 } }));
    const ids: string[] = [];
    for (const [flowId, customer] of [
      [gated, "acme"],
      [gated, "acme"],
      [gated, "acme"],
      [free, "x"],
    ] as const) {
      const res = await h.startRun(flowId, { customer });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      ids.push(res.body.run_id as string);
    }
    try {
      await expect
        .poll(async () => (await readGateQueues(deps, h.taskQueue)).find((q) => q.flowId === gated)?.queued, {
          timeout: 30_000,
          interval: 250,
        })
        .toBe(2);
      const queues = await readGateQueues(deps, h.taskQueue);
      // Only the gated flow has runs waiting; the other's gate holds its run without a queue.
      expect(queues.map((q) => q.flowId)).toEqual([gated]);
      expect(queues[0]!.oldestWaitSeconds).toBeGreaterThan(0);
      expect(queues[0]!.oldestWaitSeconds).toBeLessThan(120);

      const registry = new Registry();
      registerQueueGauges(registry, () => readGates(deps, h.taskQueue));
      const text = await registry.metrics();
      const gate = concurrencyGateId(gated, "acme");
      expect(text).toContain(`svc_runs_queued{flow="${gated}"} 2`);
      expect(text).toMatch(new RegExp(`svc_runs_queued_oldest_seconds\\{flow="${gated}"\\} \\d`));
      expect(text).toContain(`svc_gate_runs_queued{flow="${gated}",gate="${gate}"} 2`);
      expect(text).toMatch(new RegExp(`svc_gate_queued_oldest_seconds\\{flow="${gated}",gate="${gate}"\\} \\d`));
      // The gate is named by its id, never by its key (run data).
      expect(text).not.toContain("acme");
      expect(text).not.toContain(free);

      // The flow's page: per key, the runs waiting and running, and the longest wait.
      const queue = await request(h.app).get(`/api/flows/${gated}/queue`).set("Cookie", h.cookie);
      expect(queue.status, JSON.stringify(queue.body)).toBe(200);
      expect(queue.body).toMatchObject({
        queued: 2,
        keys: [{ key: "acme", queued: 2, running: 1, limit: 1 }],
      });
      expect(queue.body.oldest_wait_seconds).toBeGreaterThan(0);
      expect(queue.body.keys[0].oldest_wait_seconds).toBe(queue.body.oldest_wait_seconds);
      const idle = await request(h.app).get(`/api/flows/${free}/queue`).set("Cookie", h.cookie);
      expect(idle.body).toMatchObject({
        queued: 0,
        oldest_wait_seconds: 0,
        keys: [{ key: "", queued: 0, running: 1 }],
      });
      const missing = await request(h.app)
        .get(`/api/flows/wf_${"0".repeat(24)}/queue`)
        .set("Cookie", h.cookie);
      expect(missing.status).toBe(404);
    } finally {
      for (const id of ids) await request(h.app).post(`/api/runs/${id}/cancel`).set("Cookie", h.cookie);
    }
    await expect
      .poll(async () => (await readGateQueues(deps, h.taskQueue)).length, { timeout: 30_000, interval: 250 })
      .toBe(0);
  });
});
