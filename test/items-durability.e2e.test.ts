// A node running per item resumes after its worker process is killed with SIGKILL half way: the
// run finishes, every item recorded before the kill is never called again, and the repeats are
// at most the items that were in flight, each with the same Idempotency-Key.
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { closeDeps } from "../api/deps.js";
import { TEST_ENCRYPTION_KEY, testPrisma, testSeal } from "./helpers/context.js";
import { appOn, waitForPoller } from "./helpers/durable-app.js";
import { startLoopbackServer } from "./helpers/loopback-server.js";
import { cleanEnv, spawnEntry, type Spawned } from "./helpers/processes.js";
import { flow } from "./helpers/runs.js";

const ITEMS = 120;
const CONCURRENCY = 4;

describe("items: durable per item", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
  });

  it("resumes after a SIGKILLed worker: no recorded item repeated, at most `concurrency` repeats, keys kept", async () => {
    // The API the items call: each call counted by its Idempotency-Key, answered after 40 ms.
    const calls: string[] = [];
    const receiver = await startLoopbackServer((req, res) => {
      calls.push(String(req.headers["idempotency-key"]));
      req.resume();
      req.on("end", () =>
        setTimeout(() => res.writeHead(200, { "Content-Type": "application/json" }).end(`{"ok":true}`), 40),
      );
    });
    cleanups.push(() => receiver.close());

    const taskQueue = `items-durable-${randomUUID()}`;
    const workerEnv = cleanEnv({
      DATABASE_URL: inject("databaseUrl"),
      TEMPORAL_ADDRESS: inject("temporalAddress"),
      TEMPORAL_TASK_QUEUE: taskQueue,
      SVC_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      LOG_LEVEL: "error",
      WEBHOOK_DISPATCHER: "false",
      EGRESS_ALLOWLIST: "127.0.0.1",
    });
    const spawnWorker = (): Spawned => {
      const worker = spawnEntry("worker/main.ts", [], workerEnv);
      cleanups.push(() => {
        if (worker.child.exitCode === null) worker.child.kill("SIGKILL");
      });
      return worker;
    };
    const api = await appOn({ TEMPORAL_TASK_QUEUE: taskQueue });
    cleanups.push(() => closeDeps(api.deps));
    const flowId = await api.createFlow(
      flow(
        [
          {
            id: "fetch",
            type: "http_request",
            config: { method: "POST", url: `${receiver.url}/contacts`, body: { n: "{{ item }}" } },
            items: { from: "{{ input.rows }}", concurrency: CONCURRENCY },
          },
          { id: "count", type: "transform", config: { expression: "$count($)" } },
        ],
        [
          ["start", "fetch"],
          ["fetch", "count"],
        ],
      ),
    );

    const first = spawnWorker();
    await waitForPoller(inject("temporalAddress"), taskQueue);
    const runId = await api.start(flowId, { rows: Array.from({ length: ITEMS }, (_, n) => n) });
    const progress = () => testPrisma().runItemSet.findUnique({ where: { runId_nodeId: { runId, nodeId: "fetch" } } });
    await expect
      .poll(async () => (await progress())?.done ?? 0, { timeout: 60_000, interval: 50 })
      .toBeGreaterThan(ITEMS / 2);
    first.child.kill("SIGKILL");
    await first.exited;
    // What was recorded when the worker died: none of these may be called again.
    const recordedBefore = (await testPrisma().runItem.findMany({ where: { runId, nodeId: "fetch" } })).map(
      (row) => row.index,
    );
    const callsBefore = calls.length;
    expect(recordedBefore.length).toBeLessThan(ITEMS);

    spawnWorker();
    await expect.poll(async () => (await api.run(runId)).status, { timeout: 90_000, interval: 500 }).toBe("success");
    expect((await api.run(runId)).output).toBe(ITEMS);

    const keyOf = (n: number) => `${runId}:fetch:${n}`;
    const timesCalled = (n: number) => calls.filter((key) => key === keyOf(n)).length;
    // Every call carried an item's key; every item was called.
    expect(calls.every((key) => key.startsWith(`${runId}:fetch:`))).toBe(true);
    for (let n = 0; n < ITEMS; n++) expect(timesCalled(n), `item ${n}`).toBeGreaterThanOrEqual(1);
    // Items recorded before the kill: once each. Repeats: at most the items in flight.
    for (const n of recordedBefore) expect(timesCalled(n), `item ${n}`).toBe(1);
    expect(calls.length - ITEMS).toBeLessThanOrEqual(CONCURRENCY);
    expect(callsBefore).toBeGreaterThanOrEqual(recordedBefore.length);

    const rows = await testPrisma().runItem.findMany({ where: { runId, nodeId: "fetch" }, orderBy: { index: "asc" } });
    expect(rows).toHaveLength(ITEMS);
    expect(rows.every((row) => row.status === "success")).toBe(true);
    expect(new Set(rows.map((row) => row.attempt))).toEqual(new Set([1, 2]));
    expect(testSeal.open(rows[0]!.result)).toMatchObject({ status: 200, body: { ok: true } });
    // The lost attempt's step closed as failed, the second succeeded.
    const steps = await testPrisma().runStep.findMany({
      where: { runId, nodeId: "fetch" },
      orderBy: { attempt: "asc" },
    });
    expect(steps.map((step) => step.status)).toEqual(["failed", "success"]);
  }, 180_000);
});
