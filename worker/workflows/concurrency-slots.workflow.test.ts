// Concurrency slots taken in PostgreSQL beside the gate, on the real dev server and database: a
// start takes a free slot of a key nobody waits for in its own statement and never meets the
// gate; once the key is full, starts queue at the gate, which counts the database's slots as
// held; the database's slots free with the statement that ends their run, whatever the end.
import request from "supertest";
import { describe, expect, it } from "vitest";
import { gateQueueQuery } from "../../core/contracts/concurrency-gate.js";
import { concurrencyGateId } from "../../core/engine/concurrency-gates.js";
import { slotKeyHash, takeDbSlot } from "../../core/engine/concurrency-slots.js";
import { createBlobStore } from "../../core/runs/records/blobs.js";
import { finalizeRunRecord } from "../../core/runs/records/run-ends.js";
import { systemClock } from "../../lib/clock.js";
import { testPrisma, testSeal } from "../../test/helpers/context.js";
import { grantOrder as gateGrants, napSteps, sleeperFlow } from "../../test/helpers/gates.js";
import { useRunHarness } from "../../test/helpers/runs.js";
import { CHECK_HOLDERS_AFTER_MS } from "./concurrency-gate.workflow.js";

const h = useRunHarness();

const sleeper = (ms: number, concurrency: object) => sleeperFlow(ms, { concurrency });

const naps = napSteps;

const grantOrder = (gateId: string) => gateGrants(h.deps.temporal, gateId);

/** The key's counts as the database keeps them. */
const counts = (flowId: string, key: string) =>
  testPrisma().concurrencyKey.findUnique({
    where: { flowId_keyHash: { flowId, keyHash: slotKeyHash(key) } },
    select: { held: true, gated: true },
  });

const cancel = (runId: string) => request(h.app).post(`/api/runs/${runId}/cancel`).set("Cookie", h.cookie);

describe("concurrency slots in the database and at the gate", () => {
  it("queues at the gate once the database's slots are full, starts the queued in order as they free, then takes database slots again", async () => {
    const flowId = await h.createFlow(sleeper(2500, { limit: 2, key: "{{ input.k }}" }));
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await h.startRun(flowId, { k: "x", i })).body.run_id as string);
    const [a, b, c, d, e] = ids as [string, string, string, string, string];
    // a and b took the database's slots; the gate counts them and queues c, d, e in start order.
    expect(await counts(flowId, "x")).toEqual({ held: 2, gated: 3 });
    const gate = h.deps.temporal.workflow.getHandle(concurrencyGateId(flowId, "x"));
    await expect
      .poll(() => gate.query(gateQueueQuery), { timeout: 10_000 })
      .toEqual({ limit: 2, holders: [], waiting: [c, d, e], key: "x" });
    for (const id of ids) expect((await h.waitForEnd(id, 60_000)).status).toBe("success");

    const steps = await naps(ids);
    const span = (id: string) => [steps.get(id)!.startedAt!.getTime(), steps.get(id)!.finishedAt!.getTime()] as const;
    for (const id of ids) {
      const [at] = span(id);
      expect(ids.filter((other) => span(other)[0] <= at && at < span(other)[1]).length).toBeLessThanOrEqual(2);
    }
    // The queued started once a database holder had ended, in start order.
    expect(await grantOrder(concurrencyGateId(flowId, "x"))).toEqual([c, d, e]);
    expect(span(c)[0]).toBeGreaterThanOrEqual(Math.min(span(a)[1], span(b)[1]));
    expect(await counts(flowId, "x")).toEqual({ held: 0, gated: 0 });
    expect(await testPrisma().concurrencySlot.count({ where: { runId: { in: ids } } })).toBe(0);

    // Nobody waits any more: the next start takes a database slot and never meets the gate.
    const f = (await h.startRun(flowId, { k: "x" })).body.run_id as string;
    expect(await testPrisma().concurrencySlot.findUnique({ where: { runId: f } })).toMatchObject({ inDb: true });
    expect((await h.waitForEnd(f, 30_000)).status).toBe("success");
    expect(await grantOrder(concurrencyGateId(flowId, "x"))).toEqual([c, d, e]);
    expect(await counts(flowId, "x")).toEqual({ held: 0, gated: 0 });
  }, 120_000);

  it("frees the database slot of a run cancelled while running once its workflow ends, and the queued run starts", async () => {
    const flowId = await h.createFlow(sleeper(60_000, { limit: 1, key: "{{ input.k }}" }));
    const holder = (await h.startRun(flowId, { k: "y" })).body.run_id as string;
    const next = (await h.startRun(flowId, { k: "y" })).body.run_id as string;
    expect(await counts(flowId, "y")).toEqual({ held: 1, gated: 1 });
    await expect.poll(async () => (await naps([holder])).get(holder)?.status, { timeout: 15_000 }).toBe("running");
    expect((await cancel(holder)).status).toBe(202);
    expect((await h.waitForEnd(holder, 15_000)).status).toBe("cancelled");
    await expect.poll(async () => (await naps([next])).get(next)?.status, { timeout: 20_000 }).toBe("running");
    // The holder's nap had stopped before the next one started.
    const steps = await naps([holder, next]);
    expect(steps.get(holder)!.finishedAt!.getTime()).toBeLessThanOrEqual(steps.get(next)!.startedAt!.getTime());
    expect(await counts(flowId, "y")).toEqual({ held: 0, gated: 1 });
    expect((await cancel(next)).status).toBe(202);
    expect((await h.waitForEnd(next, 15_000)).status).toBe("cancelled");
    await expect.poll(() => counts(flowId, "y"), { timeout: 15_000 }).toEqual({ held: 0, gated: 0 });
  }, 60_000);

  it("frees the database slot of a run the reconciler ends after its workflow was terminated", async () => {
    const flowId = await h.createFlow(sleeper(60_000, { limit: 1, key: "{{ input.k }}" }));
    const holder = (await h.startRun(flowId, { k: "z" })).body.run_id as string;
    expect(await counts(flowId, "z")).toEqual({ held: 1, gated: 0 });
    await h.deps.temporal.workflow.getHandle(holder).terminate("worker lost it");
    // What the reconciler does with a run whose workflow is gone: its end frees the slot.
    const prisma = testPrisma();
    const blobs = createBlobStore({ prisma, offloadBytes: 256 * 1024, seal: testSeal });
    expect(
      await finalizeRunRecord(
        { prisma, clock: systemClock, blobs },
        { runId: holder, status: "failed", error: { message: "lost" }, skipped: [], reused: [] },
      ),
    ).toBe(true);
    expect(await counts(flowId, "z")).toEqual({ held: 0, gated: 0 });
    const next = (await h.startRun(flowId, { k: "z" })).body.run_id as string;
    expect(await testPrisma().concurrencySlot.findUnique({ where: { runId: next } })).toMatchObject({ inDb: true });
    expect((await cancel(next)).status).toBe(202);
    expect((await h.waitForEnd(next, 15_000)).status).toBe("cancelled");
  }, 60_000);

  it(
    "frees the count of a queued run whose record ended and whose workflow was terminated, while runs wait behind a database slot",
    async () => {
      const flowId = await h.createFlow(sleeper(120_000, { limit: 1, key: "{{ input.k }}" }));
      const holder = (await h.startRun(flowId, { k: "v" })).body.run_id as string;
      const lost = (await h.startRun(flowId, { k: "v" })).body.run_id as string;
      expect(await counts(flowId, "v")).toEqual({ held: 1, gated: 1 });
      // A cancel ended its record, and its workflow was terminated before it could end it again.
      await h.deps.temporal.workflow.getHandle(lost).terminate("operator stopped it");
      await testPrisma().run.update({ where: { id: lost }, data: { status: "cancelled", finishedAt: new Date() } });
      const waiting = (await h.startRun(flowId, { k: "v" })).body.run_id as string;
      expect(await counts(flowId, "v")).toEqual({ held: 1, gated: 2 });
      // The gate, with a run waiting behind the database's slot, frees the lost run's count.
      await expect
        .poll(() => counts(flowId, "v"), { timeout: CHECK_HOLDERS_AFTER_MS + 40_000, interval: 1000 })
        .toEqual({ held: 1, gated: 1 });
      expect(await testPrisma().concurrencySlot.findUnique({ where: { runId: lost } })).toBeNull();
      for (const id of [holder, waiting]) expect((await cancel(id)).status).toBe(202);
      await expect.poll(() => counts(flowId, "v"), { timeout: 30_000 }).toEqual({ held: 0, gated: 0 });
    },
    CHECK_HOLDERS_AFTER_MS + 90_000,
  );

  it("gives concurrent starts of one key no more database slots than the limit, and a repeat the same answer", async () => {
    const flowId = await h.createFlow(sleeper(10, { limit: 3, key: "{{ input.k }}" }));
    const slot = (i: number) => ({ runId: `run_slot_${i}`, flowId, key: "w", limit: 3 });
    const took = await Promise.all(Array.from({ length: 20 }, (_, i) => takeDbSlot(testPrisma(), slot(i))));
    expect(took.filter(Boolean)).toHaveLength(3);
    expect(await counts(flowId, "w")).toEqual({ held: 3, gated: 17 });
    // A repeated start of a run answers what its first decided and counts nothing more.
    const first = took.indexOf(true);
    expect(await takeDbSlot(testPrisma(), slot(first))).toBe(true);
    expect(await takeDbSlot(testPrisma(), slot(took.indexOf(false)))).toBe(false);
    expect(await counts(flowId, "w")).toEqual({ held: 3, gated: 17 });
    await testPrisma().concurrencySlot.deleteMany({ where: { flowId } });
  });
});
