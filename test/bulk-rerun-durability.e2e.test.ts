// A bulk rerun through process kills, as npm start runs the service (the API and a worker as
// processes of their own): the API and the worker SIGKILLed while the operation reruns, the client
// asking again with its Idempotency-Key from a new API, a new worker; every failed run is rerun
// exactly once and the upstream API (a local server) is never called again. And an operation
// whose workflow never started (an API that died between the record and the start) is started by
// the worker's reconciler.
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { freePort } from "../scripts/infra/process.js";
import { TEST_ENCRYPTION_KEY, testPrisma } from "./helpers/context.js";
import { waitForPoller } from "./helpers/durable-app.js";
import { createTestUser, TEST_PASSWORD } from "./helpers/identity.js";
import { startLoopbackServer } from "./helpers/loopback-server.js";
import { cleanEnv, loginOverHttp, spawnEntry, startApiAndWorker, type Spawned } from "./helpers/processes.js";
import { flow } from "./helpers/runs.js";

const RUNS = 16;

describe("bulk rerun through process kills", () => {
  const spawned: Spawned[] = [];
  const closers: Array<() => void> = [];
  afterAll(async () => {
    for (const process of spawned) if (process.child.exitCode === null) process.child.kill("SIGKILL");
    await Promise.all(spawned.map((process) => process.exited));
    closers.forEach((close) => close());
  });

  it("reruns each failed run exactly once with the API and the worker SIGKILLed mid-operation, and starts an operation that never started", async () => {
    let upstreamCalls = 0;
    const upstream = await startLoopbackServer((_req, res) => {
      upstreamCalls++;
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ amount_cents: 120 }));
    });
    closers.push(upstream.close);

    const port = await freePort();
    const env = cleanEnv({
      DATABASE_URL: inject("databaseUrl"),
      TEMPORAL_ADDRESS: inject("temporalAddress"),
      TEMPORAL_TASK_QUEUE: `bulk-durable-${randomUUID()}`,
      PORT: String(port),
      EGRESS_ALLOWLIST: "127.0.0.1",
      SVC_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      LOG_LEVEL: "error",
      WEBHOOK_DISPATCHER: "false",
      // 16 reruns at 2 a second: about 8 s, long enough for the kills to land mid-operation.
      BULK_RERUN_PER_SECOND: "2",
    });
    const started0 = await startApiAndWorker(env, spawned);
    const { base } = started0;
    let { api, worker } = started0;
    await waitForPoller(inject("temporalAddress"), env.TEMPORAL_TASK_QUEUE!);
    const user = await createTestUser("bulk-durable");
    let cookie = await loginOverHttp(base, user.email, TEST_PASSWORD);
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { "Content-Type": "application/json", Cookie: cookie, ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    const orders = (field: string) =>
      flow(
        [
          { id: "fetch", type: "http_request", config: { url: `${upstream.url}/orders/{{ input.n }}` } },
          {
            id: "compute",
            type: "code",
            config: {
              code: `if (input.body.${field} === undefined) throw new Error("no ${field}"); return { total: input.body.${field} };`,
            },
          },
        ],
        [
          ["start", "fetch"],
          ["fetch", "compute"],
        ],
      );
    const created = await call("POST", "/api/flows", { name: "Orders", definition: orders("amount") });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const flowId = created.body.id as string;
    for (let n = 0; n < RUNS; n++)
      expect((await call("POST", `/api/workflows/${flowId}/run`, { input: { n } })).status).toBe(201);
    const failedRuns = () => testPrisma().run.findMany({ where: { flowId, status: "failed" }, select: { id: true } });
    await expect.poll(async () => (await failedRuns()).length, { timeout: 90_000, interval: 500 }).toBe(RUNS);
    const failed = (await failedRuns()).map((run) => run.id);
    expect(upstreamCalls).toBe(RUNS);
    const fixed = await call("PUT", `/api/flows/${flowId}`, { version: 1, definition: orders("amount_cents") });
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(200);

    const key = `bulk-${randomUUID()}`;
    const ask = () =>
      call(
        "POST",
        "/api/runs/rerun",
        { flow_id: flowId, status: "failed", from_failed: true },
        { "Idempotency-Key": key },
      );
    const asked = await ask();
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    const operationId = asked.body.operation_id as string;
    const started = () => testPrisma().operationItem.count({ where: { operationId, status: { not: "pending" } } });
    await expect.poll(started, { timeout: 60_000, interval: 100 }).toBeGreaterThanOrEqual(3);

    // Both processes die at once, mid-operation.
    api.child.kill("SIGKILL");
    worker.child.kill("SIGKILL");
    await Promise.all([api.exited, worker.exited]);
    const startedAtKill = await started();
    expect(startedAtKill).toBeLessThan(RUNS);

    // A new API (no worker yet): the client asks again with its key and gets the same operation.
    const again = spawnEntry("api/server.ts", [], env);
    spawned.push(again);
    await expect
      .poll(async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.status, {
        timeout: 60_000,
        interval: 250,
      })
      .toBe(200);
    api = again;
    cookie = await loginOverHttp(base, user.email, TEST_PASSWORD);
    const repeated = await ask();
    expect(repeated.status, JSON.stringify(repeated.body)).toBe(200);
    expect(repeated.body.operation_id).toBe(operationId);
    // The key with another body is refused, naming nothing of the operation.
    const other = await call(
      "POST",
      "/api/runs/rerun",
      { flow_id: flowId, status: "failed", from_failed: true, version: "run" },
      { "Idempotency-Key": key },
    );
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ error: expect.any(String), code: "idempotency_key_reused" });

    worker = spawnEntry("worker/main.ts", [], env);
    spawned.push(worker);
    const operation = async () => (await call("GET", `/api/operations/${operationId}`)).body;
    await expect.poll(async () => (await operation()).status, { timeout: 120_000, interval: 500 }).toBe("completed");
    const reruns = () =>
      testPrisma().run.findMany({ where: { rerunOf: { in: failed } }, select: { rerunOf: true, status: true } });
    await expect
      .poll(async () => (await reruns()).filter((run) => run.status === "success").length, {
        timeout: 90_000,
        interval: 500,
      })
      .toBe(RUNS);
    // Each failed run rerun exactly once, none failed, and the upstream API not called again.
    const all = await reruns();
    expect(all).toHaveLength(RUNS);
    expect(new Set(all.map((run) => run.rerunOf))).toEqual(new Set(failed));
    expect((await operation()).counts).toMatchObject({ started: RUNS, skipped: 0, pending: 0, succeeded: RUNS });
    expect(upstreamCalls).toBe(RUNS);

    // An operation recorded as a dying API leaves it (its items pending, no workflow): the
    // worker's reconciler starts it and it reruns its run (read from the database: a read through
    // the API would start it too).
    const orphan = `op_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
    await testPrisma().operation.create({
      data: {
        id: orphan,
        workspaceId: user.workspace.workspaceId,
        kind: "rerun",
        status: "running",
        request: { from: "start", version: "latest", selection: { ids: [failed[0]!] } },
        total: 1,
        taskQueue: env.TEMPORAL_TASK_QUEUE,
        createdAt: new Date(Date.now() - 60_000),
        items: { create: [{ idx: 1, runId: failed[0]!, status: "pending" }] },
      },
    });
    await expect
      .poll(async () => (await testPrisma().operation.findUniqueOrThrow({ where: { id: orphan } })).status, {
        timeout: 60_000,
        interval: 500,
      })
      .toBe("completed");
    const item = await testPrisma().operationItem.findFirstOrThrow({ where: { operationId: orphan } });
    expect(item.status).toBe("started");
    const rerun = await testPrisma().run.findUniqueOrThrow({ where: { id: item.newRunId! } });
    expect(rerun.rerunOf).toBe(failed[0]);
  }, 300_000);
});
