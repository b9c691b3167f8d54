import { randomUUID } from "node:crypto";
import request from "supertest";
import { describe, expect, inject, it } from "vitest";
import { createApp } from "../api/app.js";
import { closeDeps, createDeps } from "../api/deps.js";
import { createLogger } from "../lib/logger.js";
import { testConfig, testTemporalClient } from "../test/helpers/context.js";
import { createTestUser, login } from "../test/helpers/identity.js";
import { flow, testRegistry } from "../test/helpers/runs.js";
import { startInlineWorker } from "./inline-worker.js";

describe("in-process worker (API_WORKER)", () => {
  it("runs the API's runs from their start on the worker in its process (eager start), until stopped", async () => {
    const config = testConfig({ TEMPORAL_TASK_QUEUE: `inline-${randomUUID()}` });
    const logger = createLogger(config, "inline-test");
    const nodes = testRegistry();
    const base = createDeps(config, logger, { nodes });
    const inline = startInlineWorker({
      config,
      logger,
      prisma: base.prisma,
      nodes,
      dataConverter: base.dataConverter,
      workflowBundle: { codePath: inject("workflowBundlePath") },
    });
    const temporal = await testTemporalClient();
    try {
      await expect.poll(() => inline.eagerClient() !== undefined, { timeout: 30_000 }).toBe(true);
      // The only worker of this task queue is the one in this process.
      const app = createApp({ ...base, eagerClient: inline.eagerClient });
      const user = await createTestUser("inline");
      const { cookie } = await login(app, user.email);
      const created = await request(app)
        .post("/api/flows")
        .set("Cookie", cookie)
        .send({
          name: "Inline",
          definition: flow(
            [{ id: "shape", type: "set", config: { fields: { doubled: "{{ input.n }}" } } }],
            [["start", "shape"]],
          ),
        });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const started = await request(app)
        .post(`/api/workflows/${created.body.id}/run`)
        .set("Cookie", cookie)
        .send({ input: { n: 21 } });
      expect(started.status).toBe(201);
      const runId = started.body.run_id as string;

      const result = await temporal.workflow.getHandle(runId).result();
      expect(result).toMatchObject({ status: "success", output: { doubled: 21 } });
      const { events } = await temporal.workflow.getHandle(runId).fetchHistory();
      // The start's answer carried the first workflow task to this process's worker.
      expect(events![0]!.workflowExecutionStartedEventAttributes!.eagerExecutionAccepted).toBe(true);
      const run = await request(app).get(`/api/runs/${runId}`).set("Cookie", cookie);
      expect(run.body.run).toMatchObject({ status: "success", output: { doubled: 21 } });
    } finally {
      await inline.stop();
      await temporal.connection.close();
      await closeDeps(base);
    }
    expect(inline.eagerClient()).toBeUndefined();
  });
});
