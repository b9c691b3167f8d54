import { randomUUID } from "node:crypto";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../../api/app.js";
import { closeDeps, type AppDeps } from "../../../api/deps.js";
import { systemClock } from "../../../lib/clock.js";
import { newId } from "../../../lib/ids.js";
import { requestFingerprint } from "../../../lib/request-fingerprint.js";
import { freePort } from "../../../scripts/infra/process.js";
import { testDeps, testPrisma, testSeal } from "../../../test/helpers/context.js";
import { flow, testRegistry, useRunHarness } from "../../../test/helpers/runs.js";
import { reconcileRuns, reconcileUnstartedRuns } from "../../../worker/reconcile-runs.js";
import { RUN_FLOW_WORKFLOW } from "../../contracts/run-flow.js";
import { FlowInactive, FlowNotFound, InvalidPlan } from "../../errors.js";
import { createBlobStore } from "../records/blobs.js";
import { recordCheckedRunStart } from "../records/run-records.js";
import { pinFlow } from "./pinned-flow.js";
import { runFlowInput } from "./workflow-start.js";

const twoSteps = flow(
  [
    { id: "a", type: "set", config: { fields: { a: 1 } } },
    { id: "b", type: "set", config: { fields: { b: 2 } } },
  ],
  [
    ["start", "a"],
    ["a", "b"],
  ],
);

describe("starting a run", () => {
  const h = useRunHarness();
  const opened: AppDeps[] = [];
  afterAll(async () => {
    for (const deps of opened) await closeDeps(deps);
  });

  /** The API over the same database and task queue, with Temporal settings of its own. */
  const apiWith = (overrides: Record<string, string>) => {
    const deps = testDeps({ TEMPORAL_TASK_QUEUE: h.taskQueue, ...overrides });
    opened.push(deps);
    return createApp(deps);
  };
  const startWithKey = (app: ReturnType<typeof createApp>, flowId: string, key: string) =>
    request(app)
      .post(`/api/workflows/${flowId}/run`)
      .set("Cookie", h.cookie)
      .set("Idempotency-Key", key)
      .send({ input: { key } });
  const runRow = (id: string) =>
    testPrisma().run.findUniqueOrThrow({ where: { id }, select: { status: true, idempotencyKey: true } });
  const expectEachStepOnce = async (runId: string) => {
    const steps = await h.steps(runId);
    expect(steps.map((step) => `${step.node_id}:${step.status}`).sort()).toEqual([
      "a:success",
      "b:success",
      "start:success",
    ]);
  };

  it("pins a flow's version, refusing a missing flow, an inactive one and one this installation cannot plan", async () => {
    const prisma = testPrisma();
    const flowId = await h.createFlow(twoSteps);
    const pinned = await pinFlow(prisma, testRegistry(), { workspaceId: h.workspaceId, flowId });
    expect(pinned).toMatchObject({ id: flowId, workspaceId: h.workspaceId, version: 1, name: "Test flow" });
    expect(Object.keys(pinned.plan).sort()).toEqual(["a", "b", "start"]);
    expect(runFlowInput(pinned, { id: "run_x", input: { n: 1 }, startedAt: new Date(0) })).toMatchObject({
      runId: "run_x",
      flowId,
      version: 1,
      input: { n: 1 },
      startedAt: "1970-01-01T00:00:00.000Z",
    });

    await expect(pinFlow(prisma, testRegistry(), { workspaceId: "ws_other", flowId })).rejects.toBeInstanceOf(
      FlowNotFound,
    );
    await expect(
      pinFlow(prisma, testRegistry(), { workspaceId: h.workspaceId, flowId, version: 7 }, { active: false }),
    ).rejects.toBeInstanceOf(FlowNotFound);
    await prisma.flow.update({ where: { id: flowId }, data: { status: "inactive" } });
    await expect(pinFlow(prisma, testRegistry(), { workspaceId: h.workspaceId, flowId })).rejects.toBeInstanceOf(
      FlowInactive,
    );
    // A run already recorded restarts at its version whatever the flow's state.
    const stillPinned = await pinFlow(
      prisma,
      testRegistry(),
      { workspaceId: h.workspaceId, flowId, version: 1 },
      {
        active: false,
      },
    );
    expect(stillPinned.version).toBe(1);
    // A registry without the set node cannot plan the version.
    const bare = { ...testRegistry(), get: (type: string) => (type === "set" ? undefined : testRegistry().get(type)) };
    await expect(
      pinFlow(prisma, bare, { workspaceId: h.workspaceId, flowId, version: 1 }, { active: false }),
    ).rejects.toBeInstanceOf(InvalidPlan);
  });

  it("keeps the Idempotency-Key of a start whose outcome is unknown: the repeat starts that run once Temporal answers", async () => {
    const flowId = await h.createFlow(twoSteps);
    const key = `unknown-${randomUUID()}`;
    const down = apiWith({ TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` });

    const refused = await startWithKey(down, flowId, key);
    expect(refused.status).toBe(503);
    expect(refused.headers["retry-after"]).toBe("5");
    expect(refused.body).toMatchObject({ code: "temporal_unavailable", run_id: expect.any(String) });
    const runId = refused.body.run_id as string;
    // Not recorded failed: whether it started is not known yet.
    expect(await runRow(runId)).toEqual({ status: "running", idempotencyKey: key });
    const recorded = await testPrisma().run.findUniqueOrThrow({ where: { id: runId } });
    expect(recorded.taskQueue).toBe(h.taskQueue);
    // The reconciler counts the client's 20 s from this answer, not from the record.
    expect(recorded.startAttemptedAt!.getTime()).toBeGreaterThan(recorded.startedAt.getTime());

    const repeated = await startWithKey(h.app, flowId, key);
    expect(repeated.status, JSON.stringify(repeated.body)).toBe(200);
    expect(repeated.body.run_id).toBe(runId);
    expect((await h.waitForEnd(runId)).status).toBe("success");
    await expectEachStepOnce(runId);

    // A further repeat answers the same run and starts nothing again.
    const again = await startWithKey(h.app, flowId, key);
    expect(again.body.run_id).toBe(runId);
    await expectEachStepOnce(runId);
  }, 60_000);

  it("frees the Idempotency-Key of a start Temporal refused: the repeat starts a new run", async () => {
    const flowId = await h.createFlow(twoSteps);
    const key = `refused-${randomUUID()}`;
    const missingNamespace = apiWith({ TEMPORAL_NAMESPACE: `missing-${randomUUID()}` });

    const refused = await startWithKey(missingNamespace, flowId, key);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ code: "temporal_refused" });
    expect(refused.headers["retry-after"]).toBe("30");
    expect(await runRow(refused.body.run_id)).toEqual({ status: "failed", idempotencyKey: null });

    const repeated = await startWithKey(h.app, flowId, key);
    expect(repeated.status, JSON.stringify(repeated.body)).toBe(201);
    expect(repeated.body.run_id).not.toBe(refused.body.run_id);
    expect((await h.waitForEnd(repeated.body.run_id)).status).toBe("success");
  });

  it("starts a run recorded by an API that died before starting it when its key is repeated with the same request", async () => {
    const flowId = await h.createFlow(twoSteps);
    /** What the API had done when it died: the record, no workflow; with the request's fingerprint, or none (recorded before they were kept). */
    const recordUnstarted = async (key: string, fingerprinted: boolean) => {
      const runId = newId("run");
      const path = `/api/workflows/${flowId}/run`;
      await recordCheckedRunStart(
        { prisma: testPrisma(), clock: systemClock, seal: testSeal },
        {
          id: runId,
          workspaceId: h.workspaceId,
          flowId,
          flowName: "Test flow",
          version: 1,
          trigger: "api",
          input: { key },
          idempotencyKey: key,
          requestFingerprint: fingerprinted
            ? requestFingerprint({ method: "POST", path, body: { input: { key } } })
            : null,
          retryOf: null,
          createdBy: null,
          startedAt: new Date(),
        },
      );
      return runId;
    };
    const key = `orphan-${randomUUID()}`;
    const runId = await recordUnstarted(key, true);
    // Another request with its key starts nothing and learns nothing of it.
    const other = await request(h.app)
      .post(`/api/workflows/${flowId}/run`)
      .set("Cookie", h.cookie)
      .set("Idempotency-Key", key)
      .send({ input: { key: "another" } });
    expect([other.status, other.body.code]).toEqual([409, "idempotency_key_reused"]);
    expect(await runRow(runId)).toEqual({ status: "running", idempotencyKey: key });

    const repeated = await startWithKey(h.app, flowId, key);
    expect(repeated.status).toBe(200);
    expect(repeated.body.run_id).toBe(runId);
    expect((await h.waitForEnd(runId)).status).toBe("success");
    await expectEachStepOnce(runId);

    // A run recorded before fingerprints were kept matches no request: not even its own repeat
    // replays it (the reconciler ends it if it never started, freeing its key).
    const oldKey = `before-fingerprints-${randomUUID()}`;
    const oldRun = await recordUnstarted(oldKey, false);
    const old = await startWithKey(h.app, flowId, oldKey);
    expect(old.body).toEqual({ error: expect.any(String), code: "idempotency_key_reused" });
    expect(old.status).toBe(409);
    expect((await testPrisma().run.findUniqueOrThrow({ where: { id: oldRun } })).startAttemptedAt).toBeNull();
  });

  it("ends within the quick pass a run whose workflow never started, freeing its key, and leaves a started one running", async () => {
    const prisma = testPrisma();
    const flowId = await h.createFlow(twoSteps);
    const record = async (key: string, taskQueue = h.taskQueue) => {
      const id = newId("run");
      await recordCheckedRunStart(
        { prisma, clock: systemClock, seal: testSeal },
        {
          id,
          workspaceId: h.workspaceId,
          flowId,
          flowName: "Test flow",
          version: 1,
          trigger: "api",
          input: {},
          idempotencyKey: key,
          retryOf: null,
          createdBy: null,
          taskQueue,
          // Older than the longest an API start takes.
          startedAt: new Date(Date.now() - 30_000),
        },
      );
      return id;
    };
    const neverStarted = await record(`never-${randomUUID()}`);
    const waiting = await record(`waiting-${randomUUID()}`);
    // Never started either, but a repeat with its key tried to start it a moment ago (its client
    // still follows the 503's Retry-After): neither pass ends it under that repeat.
    const repeated = await record(`repeated-${randomUUID()}`);
    await prisma.run.update({ where: { id: repeated }, data: { startAttemptedAt: new Date(Date.now() - 2_000) } });
    // Another queue's run may be another Temporal server's: this worker leaves it alone.
    const otherQueue = await record(`other-${randomUUID()}`, `other-${randomUUID()}`);
    // Started on a task queue no worker polls: running, and no step yet.
    const pinned = await pinFlow(prisma, testRegistry(), { workspaceId: h.workspaceId, flowId });
    const handle = await h.deps.temporal.workflow.start(RUN_FLOW_WORKFLOW, {
      workflowId: waiting,
      taskQueue: `nobody-${randomUUID()}`,
      args: [runFlowInput(pinned, { id: waiting, input: {}, startedAt: new Date() })],
    });
    try {
      const deps = {
        taskQueue: h.taskQueue,
        prisma,
        clock: systemClock,
        temporal: h.deps.temporal,
        blobs: createBlobStore({ prisma, offloadBytes: 262_144, seal: testSeal }),
      };
      expect(await reconcileUnstartedRuns(deps, { workspaceId: h.workspaceId })).toBe(1);
      expect(await runRow(neverStarted)).toEqual({ status: "failed", idempotencyKey: null });
      const ended = await prisma.run.findUniqueOrThrow({ where: { id: neverStarted } });
      expect(testSeal.open(ended.error)).toEqual({ message: "The run's workflow was never started" });
      expect((await runRow(waiting)).status).toBe("running");
      expect((await runRow(otherQueue)).status).toBe("running");
      expect(await runRow(repeated)).toEqual({ status: "running", idempotencyKey: expect.any(String) });
      // The full pass finds it by age alone, sees no workflow, and still leaves it to the repeat.
      expect(await reconcileRuns(deps, { workspaceId: h.workspaceId, minAgeMs: 20_000 })).toBe(0);
      expect((await runRow(repeated)).status).toBe("running");
    } finally {
      await handle.terminate("test over");
    }
  });
});
