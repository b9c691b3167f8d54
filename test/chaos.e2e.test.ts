// Chaos: bursts of runs of a mixed flow (quick nodes, an HTTP call, a durable timer) while
// Temporal restarts, PostgreSQL stops and starts again, the worker is killed again and again, or
// another workspace's transforms recurse forever on the API's in-process worker. Each test ends
// with every run finished, one successful step row per node (none missing, none doubled) and each
// run's call applied once by a receiver that honours idempotency keys.
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { afterEach, describe, expect, inject, it } from "vitest";
import { closeDeps } from "../api/deps.js";
import type { PrismaClient } from "../lib/db.js";
import { freePort, sleep } from "../scripts/infra/process.js";
import {
  callWithKey,
  faultsOf,
  NO_FAULTS,
  inLanes,
  killWorkerRepeatedly,
  mixedFlow,
  pollLatency,
  recursingTransformFlow,
  runningCount,
  startIdempotentReceiver,
  tallyChaos,
  tallyFailingRuns,
  workerProcesses,
  type KeyedCall,
} from "./helpers/chaos.js";
import { appOn } from "./helpers/durable-app.js";
import { startPrivatePostgres, startPrivateTemporal } from "./helpers/private-infra.js";
import { TEST_ENCRYPTION_KEY } from "./helpers/context.js";
import { createTestUser, login } from "./helpers/identity.js";
import { cleanEnv, spawnEntry } from "./helpers/processes.js";

describe("chaos", () => {
  // Each test's workers, app and private servers stop with it. (Workers reconcile only the runs
  // of their own task queue, so those of a private Temporal server leave other tests' runs be.)
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  });

  /** A receiver, worker processes on a task queue of the test's own, and the API app beside them. */
  async function chaosStack(infra: { databaseUrl?: string; temporalAddress?: string } = {}) {
    const receiver = await startIdempotentReceiver();
    cleanups.push(async () => receiver.close());
    const taskQueue = `chaos-${randomUUID()}`;
    const databaseUrl = infra.databaseUrl ?? inject("databaseUrl");
    const temporalAddress = infra.temporalAddress ?? inject("temporalAddress");
    const workerEnv = cleanEnv({
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_TASK_QUEUE: taskQueue,
      // The key of the app in this process (testConfig): both seal and open the same payloads.
      SVC_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      // "worker started" is how a new worker is known to be up.
      LOG_LEVEL: "info",
      EGRESS_ALLOWLIST: "127.0.0.1",
      // Other test files' webhook deliveries must not land on these short-lived workers.
      WEBHOOK_DISPATCHER: "false",
    });
    const workers = workerProcesses(workerEnv);
    cleanups.push(() => workers.stopAll());
    const api = await appOn({
      TEMPORAL_TASK_QUEUE: taskQueue,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
    });
    cleanups.push(() => closeDeps(api.deps));
    await workers.start();
    return { receiver, workers, api, prisma: api.deps.prisma as PrismaClient, env: workerEnv };
  }

  /** Starts `count` runs of `flowId`, a few at a time; resolves to their ids in order. */
  async function startRuns(
    api: Awaited<ReturnType<typeof appOn>>,
    flowId: string,
    count: number,
    input: (i: number) => object = (n) => ({ n }),
  ) {
    const runIds: string[] = new Array(count);
    const indexes = Array.from({ length: count }, (_, i) => i);
    await inLanes(indexes, 8, async (i) => {
      runIds[i] = await api.start(flowId, input(i));
    }).all;
    return runIds;
  }

  /**
   * Every key was accepted with one run, the same whatever the answers were, the flow has no
   * other run, and every run ends whole.
   */
  async function expectOneWholeRunPerKey(
    prisma: PrismaClient,
    flowId: string,
    calls: Map<string, KeyedCall>,
    receiver: Parameters<typeof tallyChaos>[2],
    flow: Parameters<typeof tallyChaos>[3],
  ) {
    const runIds = [...calls].map(([key, call]) => {
      expect(call.accepted, key).toBe(true);
      expect([...call.runIds], key).toHaveLength(1);
      return [...call.runIds][0]!;
    });
    expect(await prisma.run.count({ where: { flowId } })).toBe(calls.size);
    await waitForRunsToEnd(prisma, runIds, 120_000);
    const tally = await tallyChaos(prisma, runIds, receiver, flow);
    expect(faultsOf(tally)).toEqual(NO_FAULTS);
  }

  /** Waits (bounded) until no run of `runIds` is running any more. */
  async function waitForRunsToEnd(prisma: PrismaClient, runIds: string[], timeoutMs: number) {
    await expect.poll(() => runningCount(prisma, runIds), { timeout: timeoutMs, interval: 1000 }).toBe(0);
  }

  /** Waits until at least `count` runs wait on their last delay node's timer. */
  async function waitForDelays(prisma: PrismaClient, runIds: string[], count: number) {
    await expect
      .poll(() => prisma.runStep.count({ where: { runId: { in: runIds }, nodeId: "nap", status: "running" } }), {
        timeout: 60_000,
        interval: 200,
      })
      .toBeGreaterThanOrEqual(count);
  }

  it("finishes a burst of runs after the Temporal server restarts in the middle of it", async () => {
    const temporal = await startPrivateTemporal();
    cleanups.push(() => temporal.close());
    const { receiver, api, prisma } = await chaosStack({ temporalAddress: temporal.address });
    const flow = mixedFlow(receiver.url, { lead: "{{ trigger.lead }}", delay: "3s" });
    const flowId = await api.createFlow(flow);

    // Leads of 1 to 4 s: the restart finds runs before, at and after their call.
    const runIds = await startRuns(api, flowId, 20, (n) => ({ n, lead: `${1 + (n % 4)}s` }));
    await waitForDelays(prisma, runIds, 1);
    await temporal.restart();

    await waitForRunsToEnd(prisma, runIds, 120_000);
    const tally = await tallyChaos(prisma, runIds, receiver, flow);
    expect(faultsOf(tally)).toEqual(NO_FAULTS);
  }, 200_000);

  it("answers starts met by a killed Temporal 503 with Retry-After, and each repeated with its key runs once", async () => {
    const temporal = await startPrivateTemporal();
    cleanups.push(() => temporal.close());
    const { receiver, api, prisma } = await chaosStack({ temporalAddress: temporal.address });
    const flow = mixedFlow(receiver.url, { delay: "1s" });
    const flowId = await api.createFlow(flow);

    // Clients that do what a 503 asks: wait Retry-After, send the same request with the same key.
    const listening = api.app.listen(0, "127.0.0.1");
    cleanups.push(async () => void listening.close());
    await once(listening, "listening");
    const startUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/api/workflows/${flowId}/run`;
    const calls = new Map<string, KeyedCall>();
    const keys = Array.from({ length: 24 }, (_, n) => ({ key: `chaos-${randomUUID()}`, n }));
    const clients = inLanes(keys, 6, async ({ key, n }) => {
      calls.set(key, await callWithKey(startUrl, key, { input: { n } }, { headers: { Cookie: api.cookie } }));
    });
    await expect.poll(clients.finished, { timeout: 60_000, interval: 100 }).toBeGreaterThanOrEqual(6);
    await temporal.kill();
    // Down longer than a start waits for Temporal (10 s): the starts in flight meet the outage.
    await sleep(15_000);
    await temporal.start();
    await clients.all;
    const refused = [...calls.values()].flatMap((call) => call.refused);
    // The outage met starts, each answered as unavailable with when to try again.
    expect(refused.length).toBeGreaterThan(0);
    expect(new Set(refused.map(({ code, retryAfter }) => `${code} ${retryAfter}`))).toEqual(
      new Set(["temporal_unavailable 5"]),
    );

    await expectOneWholeRunPerKey(prisma, flowId, calls, receiver, flow);
  }, 240_000);

  it("keeps each keyed sync hook request to one whole run while the API process (with its in-process worker) is killed mid-burst", async () => {
    const { receiver, api, prisma, env } = await chaosStack();
    // The service as npm start runs it: the API process also runs workflow tasks (eager starts).
    const port = await freePort();
    const apiEnv = { ...env, PORT: String(port), API_WORKER: "true", HOOK_RATE_LIMIT: "100000", LOG_LEVEL: "info" };
    const startApi = async () => {
      const spawned = spawnEntry("api/server.ts", [], apiEnv);
      await spawned.waitForOutput(/API listening/, 60_000);
      return spawned;
    };
    let apiProcess = await startApi();
    cleanups.push(async () => {
      apiProcess.child.kill("SIGKILL");
      await apiProcess.exited;
    });
    const mixed = mixedFlow(receiver.url, { delay: "1s" });
    const hookEntry = {
      id: "start",
      type: "http_trigger",
      config: { mode: "sync", sync_timeout_ms: 20_000, dedupe: { header: "Idempotency-Key", window: "1h" } },
    };
    const flow = { ...mixed, nodes: [hookEntry, ...mixed.nodes.slice(1)] };
    const flowId = await api.createFlow(flow);
    const detail = await request(api.app).get(`/api/flows/${flowId}`).set("Cookie", api.cookie);
    const hookUrl = `http://127.0.0.1:${port}${detail.body.hook.path as string}`;

    // Clients that send the same request with the same key again when the connection breaks or
    // the answer is a 5xx.
    const calls = new Map<string, KeyedCall>();
    const keys = Array.from({ length: 48 }, (_, n) => ({ key: `hook-${randomUUID()}`, n }));
    const clients = inLanes(
      keys,
      8,
      async ({ key, n }) => calls.set(key, await callWithKey(hookUrl, key, { n })) && undefined,
    );
    await expect.poll(clients.finished, { timeout: 60_000, interval: 50 }).toBeGreaterThanOrEqual(10);
    apiProcess.child.kill("SIGKILL");
    await apiProcess.exited;
    await sleep(1000);
    apiProcess = await startApi();
    await clients.all;
    // The kill broke requests in flight.
    expect([...calls.values()].some((call) => call.refusals > 0)).toBe(true);

    await expectOneWholeRunPerKey(prisma, flowId, calls, receiver, flow);
  }, 240_000);

  it("keeps /healthz answering and another workspace's burst whole while three transforms recurse forever on the API's in-process worker", async () => {
    const { receiver, api, prisma, env } = await chaosStack();
    // The service as npm start runs it: runs started through the API begin on its in-process
    // worker, local nodes (transform among them) included.
    const port = await freePort();
    const apiEnv = { ...env, PORT: String(port), API_WORKER: "true", HOOK_RATE_LIMIT: "100000", LOG_LEVEL: "info" };
    const apiProcess = spawnEntry("api/server.ts", [], apiEnv);
    cleanups.push(async () => {
      apiProcess.child.kill("SIGKILL");
      await apiProcess.exited;
    });
    await apiProcess.waitForOutput(/in-process worker started/, 60_000);
    const base = `http://127.0.0.1:${port}`;
    const startOver = async (cookie: string, flowId: string, input: object) => {
      const res = await fetch(`${base}/api/workflows/${flowId}/run`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Cookie: cookie },
        body: JSON.stringify({ input }),
      });
      const body = (await res.json()) as { run_id?: string };
      expect(res.status, JSON.stringify(body)).toBe(201);
      return body.run_id!;
    };

    const flow = mixedFlow(receiver.url, { delay: "1s" });
    const flowId = await api.createFlow(flow);
    const hostile = await login(api.app, (await createTestUser("recursing")).email);
    const created = await request(api.app)
      .post("/api/flows")
      .set("Cookie", hostile.cookie)
      .send({ name: "recursing", definition: recursingTransformFlow(10_000) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    const healthz = pollLatency(`${base}/healthz`);
    const recursing = await Promise.all([1, 2, 3].map(() => startOver(hostile.cookie, created.body.id, {})));
    const runIds: string[] = new Array(20);
    await inLanes(
      Array.from({ length: 20 }, (_, n) => n),
      4,
      async (n) => void (runIds[n] = await startOver(api.cookie, flowId, { n })),
    ).all;

    await waitForRunsToEnd(prisma, [...runIds, ...recursing], 120_000);
    const answers = await healthz();
    expect(faultsOf(await tallyChaos(prisma, runIds, receiver, flow))).toEqual(NO_FAULTS);
    expect(await tallyFailingRuns(prisma, recursing, "spin")).toEqual({
      runs: 3,
      unfinished: [],
      missing: [],
      doubled: [],
      misrecorded: [],
    });
    for (const id of recursing) {
      const run = (await request(api.app).get(`/api/runs/${id}`).set("Cookie", hostile.cookie)).body.run;
      expect(run.error).toMatchObject({
        node_id: "spin",
        message: "The expression exceeded its time limit of 10000 ms",
      });
      // Its workflow task was never lost (a lost one runs the transform again, on another worker).
      const { events } = await api.deps.temporal.workflow.getHandle(id).fetchHistory();
      expect(
        events!.filter((e) => e.workflowTaskTimedOutEventAttributes || e.workflowTaskFailedEventAttributes),
      ).toEqual([]);
    }
    // On the API's event loop, each recursion held /healthz for its 10 s.
    expect({ failures: answers.failures, slow: answers.times.filter((ms) => ms > 1000) }).toEqual({
      failures: 0,
      slow: [],
    });
  }, 240_000);

  it("finishes a burst of runs after PostgreSQL stops and starts again in the middle of it; /readyz says 503 meanwhile", async () => {
    const postgres = await startPrivatePostgres();
    cleanups.push(() => postgres.close());
    const { receiver, api, prisma } = await chaosStack({ databaseUrl: postgres.url });
    const flow = mixedFlow(receiver.url, { lead: "{{ trigger.lead }}", delay: "3s" });
    const flowId = await api.createFlow(flow);
    const readyz = () => request(api.app).get("/readyz");

    // Leads of 1 to 5 s: the outage finds runs before, at and after their call.
    const runIds = await startRuns(api, flowId, 20, (n) => ({ n, lead: `${1 + (n % 5)}s` }));
    await waitForDelays(prisma, runIds, 1);
    const inFlight = await runningCount(prisma, runIds);
    await postgres.stop();
    await expect.poll(async () => (await readyz()).status, { timeout: 30_000 }).toBe(503);
    const down = await readyz();
    expect(down.body).toMatchObject({
      code: "not_ready",
      checks: { database: expect.stringMatching(/^down/), temporal: "ok" },
    });
    // Down long enough for the timers to fire and the nodes after them to meet the outage.
    await sleep(5000);
    await postgres.start();
    await expect.poll(async () => (await readyz()).status, { timeout: 60_000, interval: 500 }).toBe(200);

    await waitForRunsToEnd(prisma, runIds, 120_000);
    const tally = await tallyChaos(prisma, runIds, receiver, flow);
    expect(faultsOf(tally)).toEqual(NO_FAULTS);
    // The outage met runs at work, between their nodes.
    expect(inFlight).toBeGreaterThan(0);
  }, 200_000);

  it("finishes a burst of 200 runs while its worker is killed with SIGKILL every few seconds", async () => {
    const { receiver, workers, api, prisma } = await chaosStack();
    const flow = mixedFlow(receiver.url, { delay: "1s" });
    const flowId = await api.createFlow(flow);

    let started: string[] | undefined;
    const starting = startRuns(api, flowId, 200).then((ids) => (started = ids));
    const kills = await killWorkerRepeatedly(workers, {
      aliveMs: () => 2000 + Math.floor(Math.random() * 1000),
      maxKills: 5,
      busy: async () => !started || (await runningCount(prisma, started)) > 0,
    });
    const runIds = await starting;

    await waitForRunsToEnd(prisma, runIds, 150_000);
    expect(kills).toBeGreaterThan(0);
    const tally = await tallyChaos(prisma, runIds, receiver, flow);
    expect(faultsOf(tally)).toEqual(NO_FAULTS);
  }, 240_000);
});
