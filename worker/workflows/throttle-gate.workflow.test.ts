// Throttle per key on the real dev server: the flow's gate (the concurrency gate's workflow, with
// a second rule) grants at most `limit` starts per period per key, in arrival order, on a timer
// when its window is full; cancelled waiting runs leave its queue; with concurrency both rules hold.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { historyToJSON } from "@temporalio/common/lib/proto-utils.js";
import { tsToMs } from "@temporalio/common/lib/time.js";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { gateQueueQuery } from "../../core/contracts/concurrency-gate.js";
import { concurrencyGateId } from "../../core/engine/concurrency-gates.js";
import { NO_CONCURRENCY_LIMIT } from "../../core/flows/concurrency-key.js";
import { grantOrder as gateGrants, sleeperFlow } from "../../test/helpers/gates.js";
import { useRunHarness } from "../../test/helpers/runs.js";
import { testPrisma } from "../../test/helpers/context.js";

const h = useRunHarness();

/**
 * How much earlier than its grant's window a first node may appear to start in the step rows: a
 * step's start is recorded by its activity after the grant's signal and the run's tasks, whose
 * delays differ from run to run on a loaded machine. The gate's own grant times (grantTimes) are
 * held to the period exactly.
 */
const DELIVERY_SLACK_MS = 1000;

const sleeper = sleeperFlow;

/** The start times of the nap steps of `runIds`, in their order; each step must have succeeded. */
async function napStarts(runIds: string[]): Promise<number[]> {
  const rows = await testPrisma().runStep.findMany({ where: { runId: { in: runIds }, nodeId: "nap" } });
  const byRun = new Map(rows.map((row) => [row.runId, row]));
  return runIds.map((id) => {
    const step = byRun.get(id)!;
    expect(step.status, id).toBe("success");
    return step.startedAt!.getTime();
  });
}

const grantOrder = (gateId: string) => gateGrants(h.deps.temporal, gateId);

/** When the gate sent each grant, in order (its history's signal events to runs, in server time). */
async function grantTimes(gateId: string): Promise<number[]> {
  const history = await h.deps.temporal.workflow.getHandle(gateId).fetchHistory();
  return history
    .events!.filter((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === "slotGranted")
    .map((e) => tsToMs(e.eventTime));
}

/** The fewest milliseconds between a start and the `limit`-th start after it (sorted starts). */
const tightestWindow = (starts: number[], limit: number) => {
  const sorted = [...starts].sort((a, b) => a - b);
  let tightest = Infinity;
  for (let i = 0; i + limit < sorted.length; i++) tightest = Math.min(tightest, sorted[i + limit]! - sorted[i]!);
  return tightest;
};

const cancel = (runId: string) => request(h.app).post(`/api/runs/${runId}/cancel`).set("Cookie", h.cookie);

describe("throttle per key", () => {
  it("starts 12 runs of one key at most 3 per 2 s, all of them, in arrival order, without holding up another key", async () => {
    const flowId = await h.createFlow(
      sleeper(50, { throttle: { limit: 3, period_ms: 2000, key: "{{ input.customer }}" } }),
    );
    const acme: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await h.startRun(flowId, { customer: "acme", i });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      acme.push(res.body.run_id as string);
    }
    // Another key, started while acme's runs wait their windows: its own gate starts them at once.
    const globexAskedAt = Date.now();
    const globex: string[] = [];
    for (let i = 0; i < 3; i++)
      globex.push((await h.startRun(flowId, { customer: "globex", i })).body.run_id as string);

    for (const runId of [...acme, ...globex]) expect((await h.waitForEnd(runId, 30_000)).status).toBe("success");

    // The gate never granted 4 starts of acme within one 2 s window.
    expect(tightestWindow(await grantTimes(concurrencyGateId(flowId, "acme")), 3)).toBeGreaterThanOrEqual(2000);
    const starts = await napStarts(acme);
    // No 4 starts of acme within one 2 s window; 12 starts take at least 3 full windows.
    expect(tightestWindow(starts, 3)).toBeGreaterThanOrEqual(2000 - DELIVERY_SLACK_MS);
    expect(Math.max(...starts) - Math.min(...starts)).toBeGreaterThanOrEqual(3 * 2000 - DELIVERY_SLACK_MS);
    // Granted in arrival order.
    expect(await grantOrder(concurrencyGateId(flowId, "acme"))).toEqual(acme);
    // Each window's runs start after the previous window's (within a window they race).
    for (let i = 3; i < starts.length; i++) expect(starts[i]!).toBeGreaterThan(starts[i - 3]!);
    // globex's 3 fit its own window: none waited for acme's (whose last starts came 6 s on).
    for (const at of await napStarts(globex)) expect(at - globexAskedAt).toBeLessThan(2000);
    expect(Math.max(...(await napStarts(globex)))).toBeLessThan(Math.max(...starts));
  }, 90_000);

  it("takes a cancelled waiting run out of the queue: the next window goes to the run after it", async () => {
    const flowId = await h.createFlow(sleeper(50, { throttle: { limit: 1, period_ms: 3000 } }));
    const a = (await h.startRun(flowId, { i: 0 })).body.run_id as string;
    const b = (await h.startRun(flowId, { i: 1 })).body.run_id as string;
    const c = (await h.startRun(flowId, { i: 2 })).body.run_id as string;
    const gateId = concurrencyGateId(flowId, "");
    const gate = h.deps.temporal.workflow.getHandle(gateId);
    // a has the window's one start; b then c wait for the next window.
    await expect.poll(async () => (await gate.query(gateQueueQuery)).waiting, { timeout: 10_000 }).toEqual([b, c]);
    expect((await gate.query(gateQueueQuery)).limit).toBe(NO_CONCURRENCY_LIMIT);

    expect((await cancel(b)).status).toBe(202);
    expect((await h.waitForEnd(b, 15_000)).status).toBe("cancelled");
    const bSteps = await testPrisma().runStep.findMany({ where: { runId: b, nodeId: "nap" } });
    expect(bSteps.map((s) => s.status).filter((s) => s !== "skipped")).toEqual([]);

    expect((await h.waitForEnd(a, 15_000)).status).toBe("success");
    expect((await h.waitForEnd(c, 15_000)).status).toBe("success");
    const [aStart, cStart] = await napStarts([a, c]);
    expect(cStart! - aStart!).toBeGreaterThanOrEqual(3000 - DELIVERY_SLACK_MS);
    expect(tightestWindow(await grantTimes(gateId), 1)).toBeGreaterThanOrEqual(3000);
    expect(await grantOrder(gateId)).toEqual([a, c]);

    // The replay fixture of a throttled gate (workflows.replay.test.ts). Set RECORD_HISTORY=1 to
    // record it again, after a change that earlier histories must not see.
    if (process.env.RECORD_HISTORY === "1") {
      await expect
        .poll(
          async () =>
            (await gate.fetchHistory()).events!.filter(
              (e) => e.workflowExecutionSignaledEventAttributes?.signalName === "releaseSlot",
            ).length,
          { timeout: 10_000 },
        )
        .toBe(3);
      const checkout = fileURLToPath(new URL("../../", import.meta.url));
      writeFileSync(
        new URL("./histories/throttle.concurrencyGate.window-and-cancel.json", import.meta.url),
        `${JSON.stringify(JSON.parse(historyToJSON(await gate.fetchHistory())), null, 2).replaceAll(checkout, "/app/")}\n`,
      );
    }
  }, 60_000);

  it("holds both rules when a flow has concurrency and a throttle", async () => {
    const flowId = await h.createFlow(
      sleeper(300, { concurrency: { limit: 1 }, throttle: { limit: 2, period_ms: 2000 } }),
    );
    const runs: string[] = [];
    for (let i = 0; i < 4; i++) runs.push((await h.startRun(flowId, { i })).body.run_id as string);
    for (const runId of runs) expect((await h.waitForEnd(runId, 30_000)).status).toBe("success");
    const rows = await testPrisma().runStep.findMany({ where: { runId: { in: runs }, nodeId: "nap" } });
    const spans = runs
      .map((id) => rows.find((r) => r.runId === id)!)
      .map((r) => [r.startedAt!.getTime(), r.finishedAt!.getTime()]);
    // Concurrency 1: no nap starts before the one before it has finished.
    for (let i = 1; i < spans.length; i++) expect(spans[i]![0]!).toBeGreaterThanOrEqual(spans[i - 1]![1]!);
    // Throttle 2 per 2 s: the third waits for the window although the slot was free long before.
    expect(
      tightestWindow(
        spans.map(([from]) => from!),
        2,
      ),
    ).toBeGreaterThanOrEqual(2000 - DELIVERY_SLACK_MS);
    expect(await grantOrder(concurrencyGateId(flowId, ""))).toEqual(runs);
    expect(tightestWindow(await grantTimes(concurrencyGateId(flowId, "")), 2)).toBeGreaterThanOrEqual(2000);
  }, 60_000);

  it("fails a run whose input has no value for the throttle's key, before any node, naming the setting", async () => {
    const flowId = await h.createFlow(
      sleeper(10, { throttle: { limit: 2, period_ms: 1000, key: "{{ input.customer }}" } }),
    );
    const run = await h.runToEnd(flowId, { other: 1 });
    expect(run).toMatchObject({ status: "failed", error: { message: expect.stringContaining("throttle.key") } });
  });
});
