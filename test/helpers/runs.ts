// A real worker on a task queue of its own, an app starting runs on it, a logged-in editor, and
// helpers to create flows, start runs and wait for them.
import { randomUUID } from "node:crypto";
import type { Express } from "express";
import type { TestWorkflowEnvironment } from "@temporalio/testing";
import type { Worker } from "@temporalio/worker";
import request from "supertest";
import { afterAll, beforeAll, expect, inject } from "vitest";
import { createApp } from "../../api/app.js";
import { closeDeps, createDeps, type AppDeps } from "../../api/deps.js";
import { systemClock } from "../../lib/clock.js";
import { createLogger } from "../../lib/logger.js";
import { connectTemporalWorker } from "../../lib/temporal/connection.js";
import { createActivities } from "../../worker/activities/index.js";
import { builtinNodes } from "../../core/nodes/index.js";
import { createNodeRegistry } from "../../core/nodes/registry.js";
import { createDataConverter } from "../../core/engine/data-converter.js";
import { createWorker } from "../../worker/worker.js";
import { testNodes } from "../fixtures/test-nodes.js";
import { dispatchEvents } from "../../worker/webhooks/dispatcher.js";
import { testConfig, testDataConverter, testPrisma, testSeal } from "./context.js";
import { startTimeSkippingServer } from "./time-skipping.js";
import { createTestUser, login } from "./identity.js";

export const testRegistry = () => createNodeRegistry([...builtinNodes, ...testNodes]);

/** A worker running in this process until stop(). */
export async function startTestWorker(options: {
  taskQueue: string;
  address?: string;
  config?: Record<string, string>;
}) {
  const config = testConfig({
    ...(options.address ? { TEMPORAL_ADDRESS: options.address } : {}),
    ...options.config,
  });
  const connection = await connectTemporalWorker(config);
  const worker: Worker = await createWorker({
    connection,
    namespace: "default",
    taskQueue: options.taskQueue,
    activities: createActivities({ prisma: testPrisma(), clock: systemClock, nodes: testRegistry(), config }),
    dataConverter: createDataConverter(config),
    workflowBundle: { codePath: inject("workflowBundlePath") },
    shutdownGraceTime: "2 seconds",
  });
  const running = worker.run();
  return {
    async stop() {
      if (worker.getState() === "RUNNING") worker.shutdown();
      await running;
      await connection.close();
    },
  };
}

export interface RunHarness {
  /** With `timeSkipping`, the test server the API and the worker use (test/helpers/time-skipping.ts). */
  temporal?: TestWorkflowEnvironment;
  app: Express;
  deps: AppDeps;
  cookie: string;
  workspaceId: string;
  taskQueue: string;
  createFlow(definition: object, name?: string): Promise<string>;
  startRun(flowId: string, input?: object, headers?: Record<string, string>): Promise<request.Response>;
  /** Runs the flow and waits until the run has ended; returns GET /api/runs/{id}'s run. */
  runToEnd(
    flowId: string,
    input?: object,
  ): Promise<{ id: string; status: string; output: unknown; error: unknown } & Record<string, unknown>>;
  waitForEnd(
    runId: string,
    timeoutMs?: number,
  ): Promise<{ id: string; status: string; output: unknown; error: unknown } & Record<string, unknown>>;
  steps(runId: string): Promise<Array<Record<string, unknown> & { node_id: string; status: string; attempt: number }>>;
  /**
   * Stops the worker (its workflows' state leaves memory) and starts a new one on the same queue.
   * `meanwhile` runs from the moment the stop begins (`stopped`: when it is over) until the new
   * worker starts: no workflow task of the queue runs in between.
   */
  restartWorker(meanwhile?: (stopped: Promise<void>) => Promise<void>): Promise<void>;
}

/** Call at the top of a describe block. */
export function useRunHarness(options: { config?: Record<string, string>; timeSkipping?: boolean } = {}): RunHarness {
  const harness = {} as RunHarness;
  let worker: Awaited<ReturnType<typeof startTestWorker>> | undefined;
  let temporal: TestWorkflowEnvironment | undefined;

  beforeAll(async () => {
    const taskQueue = `runs-${randomUUID()}`;
    if (options.timeSkipping) temporal = await startTimeSkippingServer(testDataConverter(options.config));
    const address = temporal?.address;
    worker = await startTestWorker({ taskQueue, config: options.config, address });
    const config = testConfig({
      ...options.config,
      TEMPORAL_TASK_QUEUE: taskQueue,
      ...(address ? { TEMPORAL_ADDRESS: address } : {}),
    });
    const deps = createDeps(config, createLogger(config, "runs-test"), { nodes: testRegistry() });
    const app = createApp(deps);
    const user = await createTestUser("runner");
    const { cookie } = await login(app, user.email);

    Object.assign(harness, {
      temporal,
      app,
      deps,
      cookie,
      taskQueue,
      workspaceId: user.workspace.workspaceId,
      async createFlow(definition: object, name = "Test flow") {
        const res = await request(app).post("/api/flows").set("Cookie", cookie).send({ name, definition });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        return res.body.id as string;
      },
      startRun(flowId: string, input: object = {}, headers: Record<string, string> = {}) {
        return request(app).post(`/api/workflows/${flowId}/run`).set("Cookie", cookie).set(headers).send({ input });
      },
      async waitForEnd(runId: string, timeoutMs = 30_000) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const res = await request(app).get(`/api/runs/${runId}`).set("Cookie", cookie);
          expect(res.status).toBe(200);
          // A run waiting at its flow's gate reads queued: not ended either.
          if (res.body.run.status !== "running" && res.body.run.status !== "queued") return res.body.run;
          if (Date.now() > deadline) throw new Error(`run ${runId} still running after ${timeoutMs} ms`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      },
      async runToEnd(flowId: string, input: object = {}) {
        const started = await harness.startRun(flowId, input);
        expect(started.status, JSON.stringify(started.body)).toBe(201);
        return harness.waitForEnd(started.body.run_id);
      },
      async steps(runId: string) {
        const res = await request(app).get(`/api/runs/${runId}/steps`).set("Cookie", cookie);
        expect(res.status).toBe(200);
        return res.body.items;
      },
      async restartWorker(meanwhile?: (stopped: Promise<void>) => Promise<void>) {
        const stopped = worker ? worker.stop() : Promise.resolve();
        try {
          await meanwhile?.(stopped);
        } finally {
          await stopped;
          worker = await startTestWorker({ taskQueue, config: options.config, address });
        }
      },
    } satisfies RunHarness);
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    if (harness.deps) await closeDeps(harness.deps);
    await temporal?.teardown();
  });

  return harness;
}

/** A flow definition from compact node and edge lists; the first node is a manual trigger. */
export function flow(
  nodes: Array<{ id: string; type: string; config?: object } & Record<string, unknown>>,
  edges: Array<[string, string, string?]>,
) {
  return {
    nodes: [{ id: "start", type: "manual" }, ...nodes],
    edges: edges.map(([from, to, branch]) => ({ from, to, ...(branch ? { branch } : {}) })),
  };
}

/** Dispatches the harness workspace's outbox (run.failed starts error flows) until none of its events is left, in at most 20 passes. */
export async function drainOutbox(h: RunHarness): Promise<void> {
  const deps = {
    prisma: testPrisma(),
    clock: systemClock,
    temporal: h.deps.temporal,
    config: testConfig({ TEMPORAL_TASK_QUEUE: h.taskQueue }),
    seal: testSeal,
    nodes: testRegistry(),
  };
  for (let pass = 0; pass < 20; pass++) {
    if ((await dispatchEvents(deps, { workspaceId: h.workspaceId })) === 0) return;
  }
  throw new Error("the outbox did not drain in 20 passes");
}
