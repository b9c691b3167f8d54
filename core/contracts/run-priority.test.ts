// A flow's priority against the real dev server: refused out of range, a template rendered over
// each run's input (refused at save when it cannot be, at a start when it gives no 1 to 5), told
// to Temporal with the run's workspace as its fairness key (read back from Temporal's description
// of the workflow, a child run's too), and honoured: runs queued while no worker polls are served
// in priority order, and a second workspace's runs queued behind a first one's get their share at
// once.
import { randomUUID } from "node:crypto";
import type { Client } from "@temporalio/client";
import type { Express } from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApp } from "../../api/app.js";
import { closeDeps, type AppDeps } from "../../api/deps.js";
import { systemClock } from "../../lib/clock.js";
import { connectTemporalWorker } from "../../lib/temporal/connection.js";
import { createLogger } from "../../lib/logger.js";
import { createDeps } from "../../api/deps.js";
import { createActivities } from "../../worker/activities/index.js";
import { createWorker } from "../../worker/worker.js";
import { scheduleIdOf } from "../flows/flow-schedules.js";
import { setWorkspaceWeight } from "../engine/workspace-weights.js";
import { testConfig, testDataConverter, testPrisma } from "../../test/helpers/context.js";
import { createTestUser, login } from "../../test/helpers/identity.js";
import { flow, testRegistry, useRunHarness, type RunHarness } from "../../test/helpers/runs.js";

const echo = (value: string) => flow([{ id: "echo", type: "test_echo", config: { value } }], [["start", "echo"]]);

async function describedPriority(temporal: Client, runId: string) {
  return (await temporal.workflow.getHandle(runId).describe()).priority;
}

describe("a flow's priority", () => {
  const h = useRunHarness();

  it("is an integer from 1 to 5, refused otherwise at definition.priority", async () => {
    for (const priority of [0, 6, 2.5, "high", null]) {
      const res = await request(h.app)
        .post("/api/flows")
        .set("Cookie", h.cookie)
        .send({ name: "Wrong", definition: { ...echo("x"), priority } });
      expect(res.status, `priority ${JSON.stringify(priority)}`).toBe(400);
      expect(res.body).toMatchObject({ code: "invalid_definition", error: "The flow definition is invalid" });
      expect(res.body.details).toEqual([{ path: "definition.priority", message: expect.any(String) }]);
    }
    const id = await h.createFlow({ ...echo("x"), priority: 1 });
    const fetched = await request(h.app).get(`/api/flows/${id}`).set("Cookie", h.cookie);
    expect(fetched.body.definition.priority).toBe(1);
  });

  it("may be a template over the run's input, rendered at each start into the run's priority key", async () => {
    const tiered = { ...echo("tiered"), priority: "{{ input.tier_priority }}" };
    const id = await h.createFlow(tiered, "Tiered");
    const fetched = await request(h.app).get(`/api/flows/${id}`).set("Cookie", h.cookie);
    expect(fetched.body.definition.priority).toBe("{{ input.tier_priority }}");

    const gold = await h.runToEnd(id, { tier_priority: 1 });
    const bronze = await h.runToEnd(id, { tier_priority: "5" });
    expect([gold.status, bronze.status]).toEqual(["success", "success"]);
    expect(await describedPriority(h.deps.temporal, gold.id)).toMatchObject({
      priorityKey: 1,
      fairnessKey: h.workspaceId,
    });
    expect(await describedPriority(h.deps.temporal, bronze.id)).toMatchObject({ priorityKey: 5 });
  });

  it("refuses at save a template that does not parse, reads more than the run's input, or a text without one", async () => {
    const wrong = ["{{ input.tier", "{{ nodes.echo.value }}", "{{ item }}", "high", "2", "{{ input.p }}".repeat(50)];
    for (const priority of wrong) {
      const res = await request(h.app)
        .post("/api/flows")
        .set("Cookie", h.cookie)
        .send({ name: "Wrong template", definition: { ...echo("x"), priority } });
      expect(res.status, priority).toBe(400);
      expect(res.body).toMatchObject({ code: "invalid_definition" });
      expect(res.body.details, priority).toEqual([{ path: "definition.priority", message: expect.any(String) }]);
    }
  });

  it("refuses a start whose input renders no integer from 1 to 5: 400 naming definition.priority, no run recorded", async () => {
    const id = await h.createFlow({ ...echo("strict"), priority: "{{ input.tier_priority }}" }, "Tiered strict");
    const inputs = [{ tier_priority: 9 }, { tier_priority: 0 }, { tier_priority: 2.5 }, { tier_priority: "gold" }, {}];
    for (const input of inputs) {
      const res = await h.startRun(id, input);
      expect(res.status, JSON.stringify(input)).toBe(400);
      expect(res.body).toMatchObject({
        code: "validation_failed",
        error: expect.stringContaining("definition.priority"),
      });
      expect(res.body.details).toEqual([{ path: "definition.priority", message: expect.any(String) }]);
    }
    expect(JSON.stringify(await h.startRun(id, { tier_priority: "gold" }).then((res) => res.body))).not.toContain(
      "gold",
    );
    expect(await testPrisma().run.count({ where: { flowId: id } })).toBe(0);
    expect((await h.startRun(id, { tier_priority: 2 })).status).toBe(201);
  });

  it("is rendered for a child run by the activity that records it, and is the default when its input gives none", async () => {
    const child = await h.createFlow({ ...echo("child"), priority: "{{ input.p }}" }, "Templated child");
    const caller = (p: number) =>
      flow([{ id: "call", type: "flow.call", config: { flow_id: child, input: { p } } }], [["start", "call"]]);
    const good = await h.runToEnd(await h.createFlow(caller(2), "Calls with 2"));
    const bad = await h.runToEnd(await h.createFlow(caller(7), "Calls with 7"));
    expect([good.status, bad.status]).toEqual(["success", "success"]);
    const childOf = (parentRunId: string) => testPrisma().run.findFirstOrThrow({ where: { parentRunId } });
    expect(await describedPriority(h.deps.temporal, (await childOf(good.id)).id)).toMatchObject({ priorityKey: 2 });
    expect(await describedPriority(h.deps.temporal, (await childOf(bad.id)).id)).toMatchObject({ priorityKey: 3 });
  });

  it("reaches Temporal as the run's priority key, with the workspace as its fairness key, a child run's its own flow's", async () => {
    const child = await h.createFlow({ ...echo("child"), priority: 4 }, "Child");
    const parent = await h.createFlow(
      { ...flow([{ id: "call", type: "flow.call", config: { flow_id: child } }], [["start", "call"]]), priority: 1 },
      "Parent",
    );
    const plain = await h.createFlow(echo("plain"), "Plain");

    const parentRun = await h.runToEnd(parent);
    const plainRun = await h.runToEnd(plain);
    expect([parentRun.status, plainRun.status]).toEqual(["success", "success"]);
    const childRun = await testPrisma().run.findFirstOrThrow({ where: { parentRunId: parentRun.id } });

    const temporal = h.deps.temporal;
    expect(await describedPriority(temporal, parentRun.id)).toMatchObject({
      priorityKey: 1,
      fairnessKey: h.workspaceId,
    });
    expect(await describedPriority(temporal, childRun.id)).toMatchObject({
      priorityKey: 4,
      fairnessKey: h.workspaceId,
    });
    expect(await describedPriority(temporal, plainRun.id)).toMatchObject({
      priorityKey: 3,
      fairnessKey: h.workspaceId,
    });
  });

  it("is a schedule's too: its fires and the runs they start wait their turn as the flow's runs do", async () => {
    const definition = { ...echo("tick"), priority: 2 };
    definition.nodes[0] = { id: "start", type: "schedule", config: { interval: "1s" } };
    const flowId = await h.createFlow(definition, "Every second");
    try {
      const schedule = await h.deps.temporal.schedule.getHandle(scheduleIdOf(flowId)).describe();
      expect(schedule.action).toMatchObject({ priority: { priorityKey: 2, fairnessKey: h.workspaceId } });
      const deadline = Date.now() + 20_000;
      let run = await testPrisma().run.findFirst({ where: { flowId, status: "success" } });
      while (!run && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        run = await testPrisma().run.findFirst({ where: { flowId, status: "success" } });
      }
      expect(run, "a scheduled run within 20 s").toBeTruthy();
      expect(await describedPriority(h.deps.temporal, run!.id)).toMatchObject({
        priorityKey: 2,
        fairnessKey: h.workspaceId,
      });
    } finally {
      await request(h.app).delete(`/api/flows/${flowId}`).set("Cookie", h.cookie);
    }
  });
});

describe("runs waiting for a worker", () => {
  // The harness gives the logged-in workspace; the runs here go to a queue of their own that no
  // worker polls until they are all queued, then to a worker taking two workflow tasks at a time
  // (the fewest the SDK allows with a workflow cache).
  const h: RunHarness = useRunHarness();
  const taskQueue = `priority-${randomUUID()}`;
  let deps: AppDeps;
  let app: Express;

  beforeAll(() => {
    const config = testConfig({ TEMPORAL_TASK_QUEUE: taskQueue });
    deps = createDeps(config, createLogger(config, "priority-test"), { nodes: testRegistry() });
    app = createApp(deps);
  });
  afterAll(async () => {
    if (deps) await closeDeps(deps);
  });

  async function startRuns(cookie: string, flowId: string, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const res = await request(app).post(`/api/workflows/${flowId}/run`).set("Cookie", cookie).send({ input: {} });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      ids.push(res.body.run_id as string);
    }
    return ids;
  }

  /** When each run's first workflow task started, as Temporal recorded it. */
  async function firstTaskStarts(runIds: string[]): Promise<Map<string, number>> {
    const starts = new Map<string, number>();
    for (const runId of runIds) {
      const history = await deps.temporal.workflow.getHandle(runId).fetchHistory();
      const started = history.events?.find((event) => event.workflowTaskStartedEventAttributes);
      const time = started?.eventTime;
      expect(time, runId).toBeTruthy();
      starts.set(runId, Number(time!.seconds) * 1000 + Math.floor((time!.nanos ?? 0) / 1e6));
    }
    return starts;
  }

  /** Runs a worker taking two workflow tasks at a time until every run of `runIds` has ended. */
  async function serveFewAtATime(runIds: string[]): Promise<void> {
    const config = testConfig({ TEMPORAL_TASK_QUEUE: taskQueue });
    const connection = await connectTemporalWorker(config);
    try {
      const worker = await createWorker({
        connection,
        namespace: "default",
        taskQueue,
        activities: createActivities({ prisma: testPrisma(), clock: systemClock, nodes: testRegistry(), config }),
        dataConverter: testDataConverter(),
        workflowBundle: { codePath: inject("workflowBundlePath") },
        shutdownGraceTime: "2 seconds",
        slots: 2,
      });
      await worker.runUntil(async () => {
        const deadline = Date.now() + 60_000;
        for (;;) {
          const running = await testPrisma().run.count({ where: { id: { in: runIds }, status: "running" } });
          if (running === 0) return;
          if (Date.now() > deadline) throw new Error(`${running} runs still running after 60 s`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      });
    } finally {
      await connection.close();
    }
  }

  it("are served in priority order: runs of a priority-1 flow started last run first", async () => {
    const low = await h.createFlow({ ...echo("low"), priority: 5 }, "Low");
    const high = await h.createFlow({ ...echo("high"), priority: 1 }, "High");
    const lows = await startRuns(h.cookie, low, 6);
    const highs = await startRuns(h.cookie, high, 6);

    await serveFewAtATime([...lows, ...highs]);
    const runs = await testPrisma().run.findMany({ where: { id: { in: [...lows, ...highs] } } });
    expect(runs.map((run) => run.status)).toEqual(runs.map(() => "success"));
    const starts = await firstTaskStarts([...lows, ...highs]);
    const lastHigh = Math.max(...highs.map((id) => starts.get(id)!));
    const firstLow = Math.min(...lows.map((id) => starts.get(id)!));
    expect(lastHigh).toBeLessThanOrEqual(firstLow);
  });

  it("are fair across workspaces: a second workspace's runs queued behind a first one's are not served last", async () => {
    const flowA = await h.createFlow(echo("a"), "Flood");
    const other = await createTestUser("fair");
    const { cookie: otherCookie } = await login(app, other.email);
    const created = await request(app)
      .post("/api/flows")
      .set("Cookie", otherCookie)
      .send({ name: "Few", definition: echo("b") });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const floods = await startRuns(h.cookie, flowA, 12);
    const few = await startRuns(otherCookie, created.body.id as string, 4);

    await serveFewAtATime([...floods, ...few]);
    const starts = await firstTaskStarts([...floods, ...few]);
    const order = [...starts.entries()].sort((a, b) => a[1] - b[1]).map(([id]) => id);
    const places = few.map((id) => order.indexOf(id));
    // In arrival order they would take places 12 to 15; taking turns with the flood, about 1, 3, 5, 7.
    expect(Math.max(...places), `places ${places.join(", ")} of ${order.length}`).toBeLessThan(10);
    expect(await describedPriority(deps.temporal, few[0]!)).toMatchObject({ fairnessKey: other.workspace.workspaceId });
  });

  it("weigh a workspace as the task queue's config says: one weighing 3 is served three times as often", async () => {
    const flowA = await h.createFlow(echo("a"), "Flood again");
    const heavy = await createTestUser("weighed");
    const { cookie: heavyCookie } = await login(app, heavy.email);
    const created = await request(app)
      .post("/api/flows")
      .set("Cookie", heavyCookie)
      .send({ name: "Weighed", definition: echo("b") });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await setWorkspaceWeight(deps.temporal, taskQueue, heavy.workspace.workspaceId, 3);
    const floods = await startRuns(h.cookie, flowA, 12);
    const weighed = await startRuns(heavyCookie, created.body.id as string, 12);

    await serveFewAtATime([...floods, ...weighed]);
    const starts = await firstTaskStarts([...floods, ...weighed]);
    const order = [...starts.entries()].sort((a, b) => a[1] - b[1]).map(([id]) => id);
    const firstEight = order.slice(0, 8).filter((id) => weighed.includes(id)).length;
    // Taking turns at equal weights: 4 of the first 8; weighing 3 to 1: 7 on the dev server.
    expect(firstEight, order.map((id) => (weighed.includes(id) ? "W" : "a")).join("")).toBeGreaterThanOrEqual(6);
    await setWorkspaceWeight(deps.temporal, taskQueue, heavy.workspace.workspaceId, null);
    await expect(setWorkspaceWeight(deps.temporal, taskQueue, heavy.workspace.workspaceId, 0)).rejects.toThrow(
      RangeError,
    );
  });
});
