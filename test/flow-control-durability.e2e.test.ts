// Concurrency per key through faults: 60 runs of a flow with `concurrency {limit: 3, key: customer}`
// over 3 customers call a CRM (a loopback server holding each call 300 ms and counting the calls in
// flight per customer). Half way, the worker process is SIGKILLed and the API restarted (its
// dependencies closed and made again; the session stays valid). Then every run succeeds, the CRM
// never had more than 3 calls of one customer in flight, no slot leaked (the last runs started),
// each run's call node succeeded once, and a call repeated (at most one per slot held at the kill)
// carried its run's key again.
import { randomUUID } from "node:crypto";
import request from "supertest";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createApp } from "../api/app.js";
import { closeDeps, createDeps } from "../api/deps.js";
import { createLogger } from "../lib/logger.js";
import { TEST_ENCRYPTION_KEY, testConfig, testPrisma } from "./helpers/context.js";
import { appOn, waitForPoller } from "./helpers/durable-app.js";
import { startLoopbackServer } from "./helpers/loopback-server.js";
import { cleanEnv, spawnEntry, type Spawned } from "./helpers/processes.js";
import { flow, testRegistry } from "./helpers/runs.js";

const CUSTOMERS = ["acme", "bolt", "cask"];
const RUNS = 60;
const LIMIT = 3;
const HOLD_MS = 300;

describe("flow control: durable through faults", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
  });

  it("keeps at most 3 runs of one customer at once across a SIGKILLed worker and a restarted API, losing and doubling none", async () => {
    // The CRM: the calls in flight per customer (and the most ever), each call's run and sequence.
    const inFlight = new Map<string, number>();
    const most = new Map<string, number>();
    const calls: Array<{ customer: string; seq: number; key: string }> = [];
    let answered = 0;
    const crm = await startLoopbackServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        const { customer, seq } = JSON.parse(body) as { customer: string; seq: number };
        calls.push({ customer, seq, key: String(req.headers["idempotency-key"]) });
        const now = (inFlight.get(customer) ?? 0) + 1;
        inFlight.set(customer, now);
        most.set(customer, Math.max(most.get(customer) ?? 0, now));
        setTimeout(() => {
          inFlight.set(customer, (inFlight.get(customer) ?? 1) - 1);
          answered++;
          res.writeHead(200, { "Content-Type": "application/json" }).end(`{"ok":true}`);
        }, HOLD_MS);
      });
    });
    cleanups.push(() => crm.close());

    const taskQueue = `gate-durable-${randomUUID()}`;
    const settings = { TEMPORAL_TASK_QUEUE: taskQueue, EGRESS_ALLOWLIST: "127.0.0.1" };
    const workerEnv = cleanEnv({
      DATABASE_URL: inject("databaseUrl"),
      TEMPORAL_ADDRESS: inject("temporalAddress"),
      SVC_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      LOG_LEVEL: "error",
      WEBHOOK_DISPATCHER: "false",
      ...settings,
    });
    const spawnWorker = (): Spawned => {
      const worker = spawnEntry("worker/main.ts", [], workerEnv);
      cleanups.push(() => {
        if (worker.child.exitCode === null) worker.child.kill("SIGKILL");
      });
      return worker;
    };
    const first = await appOn(settings);
    const { cookie } = first;
    let deps = first.deps;
    let app = first.app;
    cleanups.push(() => closeDeps(deps));
    const flowId = await first.createFlow({
      ...flow(
        [
          {
            id: "call",
            type: "http_request",
            config: {
              method: "POST",
              url: `${crm.url}/contacts`,
              body: { customer: "{{ input.customer }}", seq: "{{ input.seq }}" },
            },
          },
        ],
        [["start", "call"]],
      ),
      concurrency: { limit: LIMIT, key: "{{ input.customer }}" },
    });

    const worker = spawnWorker();
    await waitForPoller(inject("temporalAddress"), taskQueue);
    const runIds: string[] = [];
    const start = async (seq: number) => {
      const res = await request(app)
        .post(`/api/workflows/${flowId}/run`)
        .set("Cookie", cookie)
        .send({ input: { customer: CUSTOMERS[seq % CUSTOMERS.length], seq } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      runIds.push(res.body.run_id as string);
    };
    for (let seq = 0; seq < RUNS / 2; seq++) await start(seq);

    // Half way through the calls: the worker dies, the API restarts, the other half starts.
    await expect.poll(() => answered, { timeout: 60_000, interval: 50 }).toBeGreaterThanOrEqual(RUNS / 4);
    worker.child.kill("SIGKILL");
    await worker.exited;
    await closeDeps(deps);
    const config = testConfig(settings);
    deps = createDeps(config, createLogger(config, "durability"), { nodes: testRegistry() });
    app = createApp(deps);
    for (let seq = RUNS / 2; seq < RUNS; seq++) await start(seq);
    spawnWorker();

    await expect
      .poll(() => testPrisma().run.count({ where: { id: { in: runIds }, status: { notIn: ["running", "queued"] } } }), {
        timeout: 150_000,
        interval: 500,
      })
      .toBe(RUNS);
    const runs = await testPrisma().run.findMany({ where: { id: { in: runIds } }, select: { status: true } });
    expect(runs.every((run) => run.status === "success")).toBe(true);

    // Never more than the limit of one customer at the CRM, and the limit was reached (it was held, not idle).
    for (const customer of CUSTOMERS) expect(most.get(customer), customer).toBeLessThanOrEqual(LIMIT);
    expect(Math.max(...most.values())).toBe(LIMIT);
    // Every run called, with its own key. Repeats: only a run holding a slot when the worker died
    // can have had a call under way (answered or not, its result not yet recorded): at most the
    // limit per customer, each repeat with its run's key.
    const seqs = new Set(calls.map((call) => call.seq));
    expect(seqs.size).toBe(RUNS);
    expect(calls.length - RUNS).toBeLessThanOrEqual(LIMIT * CUSTOMERS.length);
    for (const seq of seqs)
      expect(new Set(calls.filter((call) => call.seq === seq).map((call) => call.key)).size).toBe(1);
    for (const call of calls) expect(call.key).toMatch(/^run_[0-9a-f]+:call$/);
    // One successful step of the call node per run: none lost, none doubled.
    const steps = await testPrisma().runStep.findMany({
      where: { runId: { in: runIds }, nodeId: "call", status: "success" },
      select: { runId: true },
    });
    expect(steps).toHaveLength(RUNS);
    expect(new Set(steps.map((step) => step.runId)).size).toBe(RUNS);
  }, 300_000);
});
