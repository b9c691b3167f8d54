import { randomUUID } from "node:crypto";
import request from "supertest";
import { describe, expect, inject, it } from "vitest";
import { createApp } from "../api/app.js";
import { closeDeps, createDeps } from "../api/deps.js";
import { createLogger } from "../lib/logger.js";
import { testConfig, testTemporalClient } from "../test/helpers/context.js";
import { createTestUser, login } from "../test/helpers/identity.js";
import { flow, testRegistry } from "../test/helpers/runs.js";
import type { RunRow } from "../core/runs/records/run-records.js";
import { startInlineWorker } from "./inline-worker.js";

/** An API whose task queue's only worker is the one in its process, and a user logged in to it. */
async function apiWithInlineWorker(settings: Record<string, string> = {}) {
  const config = testConfig({ TEMPORAL_TASK_QUEUE: `inline-${randomUUID()}`, ...settings });
  const logger = createLogger(config, "inline-test");
  const nodes = testRegistry();
  const base = createDeps(config, logger, { nodes });
  /** The runs the worker ended and handed over, as api/server.ts wires it. */
  const handedOver: RunRow[] = [];
  const inline = startInlineWorker({
    config,
    logger,
    prisma: base.prisma,
    nodes,
    dataConverter: base.dataConverter,
    workflowBundle: { codePath: inject("workflowBundlePath") },
    runEnded: (run) => {
      handedOver.push(run);
      base.runEnds.handOver(run.id, run);
    },
  });
  const temporal = await testTemporalClient();
  const close = async () => {
    await inline.stop();
    await temporal.connection.close();
    await closeDeps(base);
  };
  try {
    await expect.poll(() => inline.eagerClient() !== undefined, { timeout: 30_000 }).toBe(true);
    const app = createApp({ ...base, eagerClient: inline.eagerClient });
    const user = await createTestUser("inline");
    const { cookie } = await login(app, user.email);
    const createFlow = async (definition: object) => {
      const created = await request(app).post("/api/flows").set("Cookie", cookie).send({ name: "Inline", definition });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.id as string;
    };
    const startRun = async (flowId: string, input: object) => {
      const started = await request(app).post(`/api/workflows/${flowId}/run`).set("Cookie", cookie).send({ input });
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      return started.body.run_id as string;
    };
    /** Whether the start's answer carried the run's first workflow task to this process's worker. */
    const startedEagerly = async (runId: string) => {
      const { events } = await temporal.workflow.getHandle(runId).fetchHistory();
      return events![0]!.workflowExecutionStartedEventAttributes!.eagerExecutionAccepted;
    };
    return { app, cookie, temporal, inline, createFlow, startRun, startedEagerly, handedOver, close };
  } catch (error) {
    await close();
    throw error;
  }
}

describe("in-process worker (API_WORKER)", () => {
  it("runs the API's runs from their start on the worker in its process (eager start), until stopped", async () => {
    const api = await apiWithInlineWorker();
    try {
      const flowId = await api.createFlow(
        flow([{ id: "shape", type: "set", config: { fields: { doubled: "{{ input.n }}" } } }], [["start", "shape"]]),
      );
      const runId = await api.startRun(flowId, { n: 21 });

      const result = await api.temporal.workflow.getHandle(runId).result();
      expect(result).toMatchObject({ status: "success", output: { doubled: 21 } });
      expect(await api.startedEagerly(runId)).toBe(true);
      const run = await request(api.app).get(`/api/runs/${runId}`).set("Cookie", api.cookie);
      expect(run.body.run).toMatchObject({ status: "success", output: { doubled: 21 } });
    } finally {
      await api.close();
    }
    expect(api.inline.eagerClient()).toBeUndefined();
  });

  it("starts as many runs at once eagerly as API_WORKER_SLOTS allows, beyond the SDK's 40", async () => {
    // Each run holds its workflow task (and slot) while its local node sleeps. A start that finds
    // no free slot is not eager: its task waits in the server's queue behind the eager ones. The
    // worker's pollers hold up to 10 slots while they poll, so 60 leave room for 45 (50: 7 refused).
    const api = await apiWithInlineWorker({ API_WORKER_SLOTS: "60" });
    try {
      const flowId = await api.createFlow(
        flow([{ id: "hold", type: "test_hold", config: { ms: 4000 } }], [["start", "hold"]]),
      );
      const runIds = await Promise.all(Array.from({ length: 45 }, (_, n) => api.startRun(flowId, { n })));
      const results = await Promise.all(runIds.map((id) => api.temporal.workflow.getHandle(id).result()));
      expect(results.map((result) => result.status)).toEqual(runIds.map(() => "success"));
      const eager = await Promise.all(runIds.map((id) => api.startedEagerly(id)));
      expect(eager.filter((accepted) => !accepted)).toHaveLength(0);
    } finally {
      await api.close();
    }
  });

  it("hands each run it ends to the API's sync hooks: the answer is the record the run's end wrote, as a read finds it", async () => {
    const api = await apiWithInlineWorker();
    try {
      const definition = flow(
        [{ id: "shape", type: "set", config: { fields: { doubled: "{{ input.body.n }}" } } }],
        [["start", "shape"]],
      );
      definition.nodes[0] = {
        id: "start",
        type: "http_trigger",
        config: { mode: "sync" },
      } as (typeof definition.nodes)[0];
      const flowId = await api.createFlow(definition);
      const detail = await request(api.app).get(`/api/flows/${flowId}`).set("Cookie", api.cookie);

      const answered = await request(api.app).post(detail.body.hook.path).send({ n: 7 });
      expect(answered.status, JSON.stringify(answered.body)).toBe(200);
      expect(answered.body).toMatchObject({ status: "success", output: { doubled: 7 }, error: null });
      const runId = answered.body.run_id as string;
      // Ended by the worker in the API's process, which handed its record over, sealed as stored.
      const handed = api.handedOver.find((run) => run.id === runId);
      expect(handed).toMatchObject({ id: runId, flowId, status: "success", version: detail.body.version });
      expect(JSON.stringify(handed!.output)).not.toContain('"doubled"');
      // What a read answers afterwards is what the hook answered.
      const read = await request(api.app).get(`/api/runs/${runId}`).set("Cookie", api.cookie);
      expect(read.body.run).toMatchObject({ id: runId, status: "success", output: answered.body.output });
      expect(read.body.run.duration_ms).toBe(handed!.durationMs);
    } finally {
      await api.close();
    }
  });
});
