// Queue depth and waiting time per flow for operators, on the dev server: three runs of one key at a
// concurrency limit of 1 leave two waiting at the flow's gate; the reading and the API's gauges
// (svc_runs_queued, svc_runs_queued_oldest_seconds) show them under the flow, a flow without waiting
// runs is absent, and once the runs are cancelled nothing waits.
import request from "supertest";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { systemClock } from "../../lib/clock.js";
import { registerQueueGauges } from "../../lib/operator-metrics.js";
import { testPrisma } from "../../test/helpers/context.js";
import { flow, useRunHarness } from "../../test/helpers/runs.js";
import { readGateQueues } from "./gate-queues.js";

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
      registerQueueGauges(registry, () => readGateQueues(deps, h.taskQueue));
      const text = await registry.metrics();
      expect(text).toContain(`svc_runs_queued{flow="${gated}"} 2`);
      expect(text).toMatch(new RegExp(`svc_runs_queued_oldest_seconds\\{flow="${gated}"\\} \\d`));
      expect(text).not.toContain(free);
    } finally {
      for (const id of ids) await request(h.app).post(`/api/runs/${id}/cancel`).set("Cookie", h.cookie);
    }
    await expect
      .poll(async () => (await readGateQueues(deps, h.taskQueue)).length, { timeout: 30_000, interval: 250 })
      .toBe(0);
  });
});
