// Concurrency per key on the real dev server: the gate workflow of each flow and key, runs that
// wait for its grant before their first node (stored `queued` meanwhile, `running` once granted),
// and slots given back on every end.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { historyToJSON } from "@temporalio/common/lib/proto-utils.js";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { gateQueueQuery } from "../../core/contracts/concurrency-gate.js";
import { concurrencyGateId } from "../../core/engine/concurrency-gates.js";
import { grantOrder as gateGrants, napSteps, sleeperFlow } from "../../test/helpers/gates.js";
import { useRunHarness } from "../../test/helpers/runs.js";
import { testPrisma } from "../../test/helpers/context.js";
import { exportedHistory } from "../../test/helpers/histories.js";
import { CHECK_HOLDERS_AFTER_MS } from "./concurrency-gate.workflow.js";

const h = useRunHarness();

const sleeper = (ms: number, concurrency: object) => sleeperFlow(ms, { concurrency });

const naps = napSteps;

const grantOrder = (gateId: string) => gateGrants(h.deps.temporal, gateId);

const cancel = (runId: string) => request(h.app).post(`/api/runs/${runId}/cancel`).set("Cookie", h.cookie);
/** The status the runs table holds, by run id. */
async function stored(runIds: string[]) {
  const rows = await testPrisma().run.findMany({ where: { id: { in: runIds } }, select: { id: true, status: true } });
  return runIds.map((id) => rows.find((row) => row.id === id)?.status);
}

describe("concurrency per key", () => {
  it("runs 60 starts over 3 customers at most 3 at once per customer, all of them, in start order per customer", async () => {
    const flowId = await h.createFlow(sleeper(1000, { limit: 3, key: "{{ input.customer }}" }));
    const customers = ["acme", "globex", "initech"];
    const started: Array<{ runId: string; customer: string }> = [];
    for (let i = 0; i < 60; i++) {
      const customer = customers[i % 3]!;
      const res = await h.startRun(flowId, { customer, i });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      started.push({ runId: res.body.run_id as string, customer });
    }
    for (const { runId } of started) expect((await h.waitForEnd(runId, 60_000)).status).toBe("success");

    const steps = await naps(started.map((s) => s.runId));
    let peak = 0;
    for (const customer of customers) {
      const runs = started.filter((s) => s.customer === customer).map((s) => s.runId);
      const spans = runs.map((id) => {
        const step = steps.get(id)!;
        expect(step.status).toBe("success");
        return [step.startedAt!.getTime(), step.finishedAt!.getTime()] as const;
      });
      // At each nap's start, the naps of the same customer under way then (itself included).
      for (const [at] of spans) {
        const during = spans.filter(([from, to]) => from <= at && at < to).length;
        expect(during, `${customer} at ${at}`).toBeLessThanOrEqual(3);
        peak = Math.max(peak, during);
      }
      // The runs that queued were granted in the order they were started; a start that took a
      // slot in the database came after every run queued before it had ended (none jumped the queue).
      // (All 60 succeeded: a run the gate never granted took its slot in the database.)
      const granted = await grantOrder(concurrencyGateId(flowId, customer));
      const inDb = new Set(runs.filter((id) => !granted.includes(id)));
      const queued = runs.filter((id) => !inDb.has(id));
      expect(granted).toEqual(queued);
      runs.forEach((id, i) => {
        if (!inDb.has(id)) return;
        for (const earlier of runs.slice(0, i).filter((e) => !inDb.has(e))) {
          expect(steps.get(earlier)!.finishedAt!.getTime(), `${earlier} before ${id}`).toBeLessThanOrEqual(
            steps.get(id)!.startedAt!.getTime(),
          );
        }
      });
      // Both holders: the first three took database slots, and later runs queued at the gate.
      expect(runs.slice(0, 3).every((id) => inDb.has(id))).toBe(true);
      expect(queued.length).toBeGreaterThan(0);
    }
    // The limit was reached (the runs did wait for each other), not merely respected by chance.
    expect(peak).toBe(3);
  }, 120_000);

  it("cancelling a queued run takes it out of the queue, and cancelling a running one frees its slot", async () => {
    const flowId = await h.createFlow(sleeper(60_000, { limit: 1 }));
    const [a, b, c] = await Promise.all(
      [0, 1, 2].map(async (i) => {
        // Started one after the other: a holds the slot, b and c wait in that order.
        await new Promise((resolve) => setTimeout(resolve, i * 300));
        return (await h.startRun(flowId, { i })).body.run_id as string;
      }),
    );
    await expect.poll(async () => (await naps([a!])).get(a!)?.status, { timeout: 15_000 }).toBe("running");
    // a took the free slot in the database; the gate queues b then c (its query gives each queued
    // run's position).
    const gate = h.deps.temporal.workflow.getHandle(concurrencyGateId(flowId, ""));
    await expect
      .poll(() => gate.query(gateQueueQuery), { timeout: 10_000 })
      .toEqual({ limit: 1, holders: [], waiting: [b, c], key: "" });
    // Stored: the waiting runs are queued, the holder (a database slot) running.
    await expect.poll(() => stored([a!, b!, c!]), { timeout: 10_000 }).toEqual(["running", "queued", "queued"]);

    expect((await cancel(b!)).status).toBe(202);
    expect((await h.waitForEnd(b!, 15_000)).status).toBe("cancelled");
    // Neither has started its node: c has no step yet, and b has none or (once its end has
    // recorded it, which may land just after its status) a skipped one. Read once, in one query.
    const queuedSteps = await naps([b!, c!]);
    expect(queuedSteps.has(c!)).toBe(false);
    expect(queuedSteps.get(b!)?.status ?? "skipped").toBe("skipped");

    expect((await cancel(a!)).status).toBe(202);
    expect((await h.waitForEnd(a!, 15_000)).status).toBe("cancelled");
    // c takes the freed slot (b, cancelled, is not granted it).
    await expect.poll(async () => (await naps([c!])).get(c!)?.status, { timeout: 15_000 }).toBe("running");
    expect(await gate.query(gateQueueQuery)).toEqual({ limit: 1, holders: [c], waiting: [], key: "" });
    // c, granted, is stored running again; b ended cancelled from queued.
    await expect.poll(() => stored([b!, c!]), { timeout: 10_000 }).toEqual(["cancelled", "running"]);
    expect(await grantOrder(concurrencyGateId(flowId, ""))).toEqual([c]);
    expect((await cancel(c!)).status).toBe(202);
    expect((await h.waitForEnd(c!, 15_000)).status).toBe("cancelled");

    // The replay fixtures of the gate and of a run cancelled while queued (workflows.replay.test.ts).
    // Set RECORD_HISTORY=1 to record them again, after a change that earlier histories must not see.
    if (process.env.RECORD_HISTORY === "1") {
      const gateId = concurrencyGateId(flowId, "");
      // The gate's last grant and release are in its history once c's release is.
      await expect
        .poll(
          async () =>
            JSON.stringify(
              (await h.deps.temporal.workflow.getHandle(gateId).fetchHistory()).events!.filter(
                (e) => e.workflowExecutionSignaledEventAttributes?.signalName === "releaseSlot",
              ).length,
            ),
          { timeout: 10_000 },
        )
        .toBe("3");
      const checkout = fileURLToPath(new URL("../../", import.meta.url));
      const write = (name: string, json: string) =>
        writeFileSync(
          new URL(`./histories/${name}`, import.meta.url),
          `${JSON.stringify(JSON.parse(json), null, 2).replaceAll(checkout, "/app/")}\n`,
        );
      write(
        "concurrency.concurrencyGate.grants-and-cancels.json",
        historyToJSON(await h.deps.temporal.workflow.getHandle(gateId).fetchHistory()),
      );
      write("concurrency.runFlow.cancelled-while-queued.json", await exportedHistory(h.deps.temporal, b!));
    }
  }, 60_000);

  it(
    "frees the slot of a run whose workflow was terminated without giving it back",
    async () => {
      const flowId = await h.createFlow(sleeper(60_000, { limit: 1, key: "{{ input.k }}" }));
      const holder = (await h.startRun(flowId, { k: "x" })).body.run_id as string;
      await expect.poll(async () => (await naps([holder])).get(holder)?.status, { timeout: 15_000 }).toBe("running");
      const next = (await h.startRun(flowId, { k: "x" })).body.run_id as string;
      await h.deps.temporal.workflow.getHandle(holder).terminate("operator stopped it");
      // The gate notices once the slot has been held CHECK_HOLDERS_AFTER_MS while a run waits.
      await expect
        .poll(async () => (await naps([next])).get(next)?.status, {
          timeout: CHECK_HOLDERS_AFTER_MS + 20_000,
          interval: 500,
        })
        .toBe("running");
      expect((await cancel(next)).status).toBe(202);
      expect((await h.waitForEnd(next, 15_000)).status).toBe("cancelled");
    },
    CHECK_HOLDERS_AFTER_MS + 60_000,
  );

  it("fails a run whose input has no value for the key, before any node, naming the setting", async () => {
    const flowId = await h.createFlow(sleeper(10, { limit: 2, key: "{{ input.customer }}" }));
    const run = await h.runToEnd(flowId, { other: 1 });
    expect(run).toMatchObject({ status: "failed", error: { message: expect.stringContaining("concurrency.key") } });
    expect((await naps([run.id])).get(run.id)?.status).not.toBe("success");
  });
});
