import { randomBytes } from "node:crypto";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { RUN_TRIGGERS } from "../../../core/contracts/run-flow.js";
import { HOOK_TRIGGER_TYPES } from "../../../core/nodes/http-trigger/http-trigger.node.js";
import { testPrisma } from "../../../test/helpers/context.js";
import { createTestUser, login } from "../../../test/helpers/identity.js";
import { readAllPages } from "../../../test/helpers/pages.js";
import { brokenSwitches } from "../../../test/fixtures/test-nodes.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const h = useRunHarness();
const echo = () => flow([{ id: "echo", type: "test_echo", config: { value: "{{ input.n }}" } }], [["start", "echo"]]);

describe("run endpoints", () => {
  it("starts a run: {run_id, status: running, started_at}, and GET /api/runs/{id} reads it", async () => {
    const flowId = await h.createFlow(echo());
    const res = await h.startRun(flowId, { n: 42 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      run_id: expect.stringMatching(/^run_[0-9a-f]{24}$/),
      status: "running",
      started_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(res.headers.location).toBe(`/api/runs/${res.body.run_id}`);

    const run = await h.waitForEnd(res.body.run_id);
    expect(run).toEqual({
      id: res.body.run_id,
      status: "success",
      duration_ms: expect.any(Number),
      output: { input: { n: 42 }, value: 42 },
      flow_id: flowId,
      flow_name: "Test flow",
      version: 1,
      trigger: "api",
      test: false,
      started_at: res.body.started_at,
      finished_at: expect.any(String),
      error: null,
      retry_of: null,
      rerun_of: null,
      rerun_from_node: null,
      rerun: null,
      parent_run_id: null,
      temporal_url: null,
      // Where it waits at its flow's gate: none without one.
      queue: null,
    });
    expect(Number.isInteger(run.duration_ms)).toBe(true);

    // The Temporal UI's list names the flow, its version and the trigger; its page the ids.
    const workflow = await h.deps.temporal.workflow.getHandle(res.body.run_id).describe();
    expect(await workflow.staticSummary()).toBe("Test flow v1 · api");
    expect(await workflow.staticDetails()).toContain(`**flow** ${flowId} (SvcFlowId)`);
  });

  it("emits run.started and run.completed with exactly the spec's data", async () => {
    const flowId = await h.createFlow(echo(), "Evented");
    const run = await h.runToEnd(flowId, { n: 1 });
    const events = await testPrisma().event.findMany({
      where: { workspaceId: h.workspaceId, payload: { path: ["data", "run_id"], equals: run.id } },
      orderBy: { createdAt: "asc" },
    });
    expect(events.map((e) => e.type)).toEqual(["run.started", "run.completed"]);
    const completed = events[1]!.payload as {
      event: string;
      timestamp: string;
      workspace_id: string;
      data: Record<string, unknown>;
    };
    expect(completed).toEqual({
      event: "run.completed",
      timestamp: expect.any(String),
      workspace_id: h.workspaceId,
      data: {
        run_id: run.id,
        workflow_id: flowId,
        workflow_name: "Evented",
        status: "success",
        duration_ms: run.duration_ms,
        started_at: run.started_at,
        finished_at: run.finished_at,
      },
    });
  });

  it("returns the same run for a repeated Idempotency-Key, even when requests race", async () => {
    const flowId = await h.createFlow(echo());
    const key = `order-${Date.now()}`;
    const first = await h.startRun(flowId, { n: 1 }, { "Idempotency-Key": key });
    const second = await h.startRun(flowId, { n: 1 }, { "Idempotency-Key": key });
    expect(first.status).toBe(201);
    expect(second.status).toBe(200);
    expect(second.body.run_id).toBe(first.body.run_id);

    const raceKey = `race-${Date.now()}`;
    const raced = await Promise.all([1, 2, 3].map(() => h.startRun(flowId, { n: 2 }, { "Idempotency-Key": raceKey })));
    expect(new Set(raced.map((r) => r.body.run_id)).size).toBe(1);
    expect(await testPrisma().run.count({ where: { workspaceId: h.workspaceId, idempotencyKey: raceKey } })).toBe(1);
    await h.waitForEnd(raced[0]!.body.run_id);
  });

  it("replays an Idempotency-Key only for the same request: another input or flow answers 409 idempotency_key_reused with nothing of the first run", async () => {
    const flowId = await h.createFlow(echo());
    const otherFlowId = await h.createFlow(echo());
    const key = `bound-${Date.now()}`;
    const first = await h.startRun(flowId, { email: "ada@example.com", card: "4242" }, { "Idempotency-Key": key });
    expect(first.status).toBe(201);
    // The same input in another key order is the same request.
    const repeat = await request(h.app)
      .post(`/api/workflows/${flowId}/run`)
      .set("Cookie", h.cookie)
      .set("Idempotency-Key", key)
      .set("Content-Type", "application/json")
      .send('{ "input": { "card": "4242", "email": "ada@example.com" } }');
    expect([repeat.status, repeat.body.run_id]).toEqual([200, first.body.run_id]);

    const reused = [
      await h.startRun(flowId, { email: "eve@example.com" }, { "Idempotency-Key": key }),
      await h.startRun(flowId, undefined, { "Idempotency-Key": key }),
      await h.startRun(otherFlowId, { email: "ada@example.com", card: "4242" }, { "Idempotency-Key": key }),
    ];
    for (const res of reused) {
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: expect.any(String), code: "idempotency_key_reused" });
      expect(res.headers.location).toBeUndefined();
      expect(JSON.stringify(res.body)).not.toContain(first.body.run_id);
    }
    // An absent input is {}: the same request as an empty one.
    const emptyKey = `empty-${Date.now()}`;
    const empty = await h.startRun(flowId, {}, { "Idempotency-Key": emptyKey });
    const absent = await request(h.app)
      .post(`/api/workflows/${flowId}/run`)
      .set("Cookie", h.cookie)
      .set("Idempotency-Key", emptyKey);
    expect([empty.status, absent.status, absent.body.run_id]).toEqual([201, 200, empty.body.run_id]);
    expect(await testPrisma().run.count({ where: { flowId: { in: [flowId, otherFlowId] } } })).toBe(2);
    await h.waitForEnd(first.body.run_id);
  });

  it("refuses unknown flows (404), inactive or archived flows (409), bad input (400) and viewers (403)", async () => {
    const flowId = await h.createFlow(echo());
    expect((await h.startRun("wf_000000000000000000000000")).status).toBe(404);
    const other = await createTestUser("other-ws");
    const { cookie: otherCookie } = await login(h.app, other.email);
    expect((await request(h.app).post(`/api/workflows/${flowId}/run`).set("Cookie", otherCookie).send({})).status).toBe(
      404,
    );

    const bad = await request(h.app)
      .post(`/api/workflows/${flowId}/run`)
      .set("Cookie", h.cookie)
      .send({ input: [1, 2] });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("validation_failed");
    // Text PostgreSQL cannot store is refused up front, never a 500.
    const nul = await h.startRun(flowId, { note: "a\u0000b" });
    expect([nul.status, nul.body.code, nul.body.details?.[0]?.path]).toEqual([
      400,
      "unstorable_text",
      "body.input.note",
    ]);
    const badKey = await h.startRun(flowId, {}, { "Idempotency-Key": "has spaces" });
    expect(badKey.status).toBe(400);

    for (const status of ["inactive", "archived"]) {
      const { body } = await request(h.app).get(`/api/flows/${flowId}`).set("Cookie", h.cookie);
      await request(h.app).put(`/api/flows/${flowId}`).set("Cookie", h.cookie).send({ version: body.version, status });
      const refused = await h.startRun(flowId);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ code: "flow_not_active", flow_status: status });
    }

    const viewer = await createTestUser("run-viewer");
    await testPrisma().membership.create({
      data: { userId: viewer.user.id, workspaceId: h.workspaceId, role: "viewer" },
    });
    const { cookie } = await login(h.app, viewer.email, undefined, { workspaceId: h.workspaceId });
    const active = await h.createFlow(echo());
    expect((await request(h.app).post(`/api/workflows/${active}/run`).set("Cookie", cookie).send({})).status).toBe(403);
  });

  it("starts a run without a body, with {} as input", async () => {
    const flowId = await h.createFlow(echo());
    const res = await request(h.app).post(`/api/workflows/${flowId}/run`).set("Cookie", h.cookie);
    expect(res.status).toBe(201);
    expect((await h.waitForEnd(res.body.run_id)).output).toEqual({ input: {}, value: null });
  });

  it("lists runs by flow and status with a cursor, and the latest runs with flow names", async () => {
    const flowId = await h.createFlow(echo(), "Listed");
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await h.runToEnd(flowId, { n: i })).id);

    const pageOne = await request(h.app).get(`/api/runs?flow_id=${flowId}&limit=2`).set("Cookie", h.cookie);
    expect(pageOne.body.items.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1]]);
    const pageTwo = await request(h.app)
      .get(`/api/runs?flow_id=${flowId}&limit=2&cursor=${pageOne.body.next_cursor}`)
      .set("Cookie", h.cookie);
    expect(pageTwo.body.items.map((r: { id: string }) => r.id)).toEqual([ids[0]]);
    expect(pageTwo.body.next_cursor).toBeNull();
    expect(pageOne.body.items[0]).toEqual({
      id: ids[2],
      flow_id: flowId,
      flow_name: "Listed",
      status: "success",
      started_at: expect.any(String),
      finished_at: expect.any(String),
      duration_ms: expect.any(Number),
      version: 1,
      trigger: "api",
      test: false,
      rerun_of: null,
      reruns: 0,
      error: null,
    });

    const failedOnly = await request(h.app).get(`/api/runs?flow_id=${flowId}&status=failed`).set("Cookie", h.cookie);
    expect(failedOnly.body.items).toEqual([]);

    const latest = await request(h.app).get("/api/dashboard/runs/latest?limit=2").set("Cookie", h.cookie);
    expect(latest.status).toBe(200);
    expect(latest.body.items).toHaveLength(2);
    expect(latest.body.items[0]).toMatchObject({
      id: expect.any(String),
      flow_name: expect.any(String),
      status: expect.any(String),
    });
  });

  it("filters runs by trigger, a start time window and id, with the cursor paging under the filters", async () => {
    // Runs recorded directly: triggers and start instants no endpoint lets a test choose.
    const flowId = await h.createFlow(echo(), "Windowed");
    const prefix = randomBytes(10).toString("hex");
    const runs = [
      ["0001", "schedule", "2026-02-01T00:00:00.000Z"],
      ["0002", "api", "2026-02-01T06:00:00.000Z"],
      ["0003", "schedule", "2026-02-01T12:00:00.000Z"],
      ["0004", "schedule", "2026-02-01T12:00:00.000Z"],
      ["0005", "webhook", "2026-02-01T18:00:00.000Z"],
      ["0006", "schedule", "2026-02-02T00:00:00.000Z"],
    ] as const;
    for (const [suffix, trigger, startedAt] of runs) {
      await testPrisma().run.create({
        data: {
          id: `run_${prefix}${suffix}`,
          workspaceId: h.workspaceId,
          flowId,
          flowName: "Windowed",
          version: 1,
          status: "success",
          trigger,
          input: {},
          startedAt: new Date(startedAt),
        },
      });
    }
    const list = async (query: string) => {
      const { items } = await readAllPages<{ id: string }>(
        h.app,
        h.cookie,
        `/api/runs?flow_id=${flowId}&limit=1&${query}`,
      );
      return items.map((run) => run.id.slice(-4));
    };

    expect(await list("trigger=schedule")).toEqual(["0006", "0004", "0003", "0001"]);
    // started_after is inclusive, started_before exclusive; offsets name the same instants.
    expect(await list("started_after=2026-02-01T12:00:00Z&started_before=2026-02-02T00:00:00Z")).toEqual([
      "0005",
      "0004",
      "0003",
    ]);
    expect(await list(`trigger=schedule&started_after=${encodeURIComponent("2026-02-01T13:00:00+01:00")}`)).toEqual([
      "0006",
      "0004",
      "0003",
    ]);
    expect(await list("started_before=2026-02-01T06:00:00.000Z")).toEqual(["0001"]);
    expect(await list("trigger=loop")).toEqual([]);
    // Hook runs record their entry node's type as trigger: each is a value the filter accepts.
    for (const type of HOOK_TRIGGER_TYPES) expect(RUN_TRIGGERS).toContain(type);

    // A whole run id finds that run; its beginning, the runs whose id begins so; with the other filters.
    expect(await list(`id=run_${prefix}0005`)).toEqual(["0005"]);
    expect(await list(`id=run_${prefix}000&trigger=schedule`)).toEqual(["0006", "0004", "0003", "0001"]);
    expect(await list(`id=run_${prefix.slice(0, 8)}&status=success`)).toHaveLength(6);
    expect(await list(`id=run_${prefix}0009`)).toEqual([]);

    const one = await request(h.app).get(`/api/runs?flow_id=${flowId}&trigger=webhook`).set("Cookie", h.cookie);
    expect(one.body.items).toEqual([expect.objectContaining({ id: `run_${prefix}0005`, trigger: "webhook" })]);

    for (const query of [
      "trigger=cron",
      "started_after=yesterday",
      "started_after=2026-02-01",
      "started_before=2026-02-01T00:00:00",
      "started_after=2026-02-02T00:00:00Z&started_before=2026-02-01T00:00:00Z",
      "started_after=2026-02-01T00:00:00Z&started_before=2026-02-01T00:00:00Z",
      "id=3fa8",
      "id=run_",
      "id=run_XYZ",
      `id=run_${prefix}00050`,
    ]) {
      const bad = await request(h.app).get(`/api/runs?${query}`).set("Cookie", h.cookie);
      expect([bad.status, bad.body.code, typeof bad.body.error], query).toEqual([400, "validation_failed", "string"]);
    }
  });

  it("shows each step's input: what the engine passed the node, rebuilt from the recorded outputs", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "a", type: "test_echo", config: { value: "a" } },
          { id: "b", type: "test_echo", config: { value: "b" } },
          { id: "join", type: "merge", config: { mode: "array" } },
          { id: "after", type: "test_echo", config: { value: "after" } },
          { id: "big", type: "test_big", config: { bytes: 300_000 } },
          { id: "sized", type: "test_echo", config: {} },
        ],
        [
          ["start", "a"],
          ["start", "b"],
          ["a", "join"],
          ["b", "join"],
          ["join", "after"],
          ["start", "big"],
          ["big", "sized"],
        ],
      ),
    );
    const run = await h.runToEnd(flowId, { n: 7 });
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    const steps = Object.fromEntries((await h.steps(run.id)).map((s) => [s.node_id, s]));

    expect(steps.start).toMatchObject({ input: { n: 7 }, input_unavailable: null });
    // test_echo outputs the input it was given: the rebuilt input must be that very value.
    for (const id of ["a", "b", "after"]) {
      expect(steps[id]!.input, id).toEqual((steps[id]!.output as { input: unknown }).input);
    }
    expect(steps.a!.input).toEqual({ n: 7 });
    // A merge gets its input keyed by parent; in array mode it outputs those values in edge order.
    expect(steps.join!.input).toEqual({ a: { input: { n: 7 }, value: "a" }, b: { input: { n: 7 }, value: "b" } });
    const joined = steps.join!.input as Record<string, unknown>;
    expect(steps.join!.output).toEqual([joined.a, joined.b]);
    // An upstream output stored apart (run_blobs) shows as the step log shows outputs stored apart.
    expect(steps.big!.output).toEqual({ truncated: true, bytes: expect.any(Number) });
    expect(steps.sized!.input).toEqual(steps.big!.output);
  });

  it("says why a step has no input: a skipped node did not run", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "check", type: "condition", config: { left: "{{ input.n }}", operator: "greater_than", right: 5 } },
          { id: "big", type: "test_echo", config: { value: "big" } },
          { id: "small", type: "test_echo", config: { value: "small" } },
        ],
        [
          ["start", "check"],
          ["check", "big", "true"],
          ["check", "small", "false"],
        ],
      ),
    );
    const run = await h.runToEnd(flowId, { n: 9 });
    const steps = Object.fromEntries((await h.steps(run.id)).map((s) => [s.node_id, s]));
    expect(steps.big).toMatchObject({ status: "success", input: { n: 9 }, input_unavailable: null });
    expect(steps.small).toMatchObject({ status: "skipped", input: null, input_unavailable: "not_run" });
  });

  it("lists the pinned version's nodes in the order they run, with their names, positions and edges", async () => {
    const flowId = await h.createFlow(
      flow(
        // Defined after the node it follows: the list puts it after that node all the same.
        [
          { id: "after", type: "test_echo", name: "After all", config: {}, position: { x: 400, y: 10 } },
          { id: "first", type: "test_echo", config: {} },
        ],
        [
          ["start", "first"],
          ["first", "after"],
        ],
      ),
    );
    const run = await h.runToEnd(flowId);
    const res = await request(h.app).get(`/api/runs/${run.id}/steps`).set("Cookie", h.cookie);
    expect(res.body.nodes).toEqual([
      { id: "start", type: "manual", name: null, position: null, carried_over_from: null },
      { id: "first", type: "test_echo", name: null, position: null, carried_over_from: null },
      { id: "after", type: "test_echo", name: "After all", position: { x: 400, y: 10 }, carried_over_from: null },
    ]);
    expect(res.body.edges).toEqual([
      { from: "start", to: "first", branch: null },
      { from: "first", to: "after", branch: null },
    ]);
    expect(res.body.items.map((s: { carried_over_from: unknown }) => s.carried_over_from)).toEqual([null, null, null]);
  });

  it("marks the steps and nodes a retry carried over from the run it retries", async () => {
    const key = randomBytes(8).toString("hex");
    brokenSwitches.add(key);
    const flowId = await h.createFlow(
      flow(
        [
          { id: "prepare", type: "test_echo", config: { value: "prepared" } },
          { id: "gate", type: "test_switch", config: { key } },
          { id: "after", type: "test_echo", config: {} },
        ],
        [
          ["start", "prepare"],
          ["prepare", "gate"],
          ["gate", "after"],
        ],
      ),
    );
    const failed = await h.runToEnd(flowId);
    expect(failed.status).toBe("failed");
    brokenSwitches.delete(key);
    const retried = await request(h.app).post(`/api/runs/${failed.id}/retry`).set("Cookie", h.cookie);
    expect(retried.status).toBe(201);
    const run = await h.waitForEnd(retried.body.run_id);
    expect(run.status).toBe("success");

    const res = await request(h.app).get(`/api/runs/${run.id}/steps`).set("Cookie", h.cookie);
    const carried = (rows: Array<{ node_id?: string; id?: string; carried_over_from: string | null }>) =>
      Object.fromEntries(rows.map((row) => [row.node_id ?? row.id, row.carried_over_from]));
    expect(carried(res.body.items)).toEqual({ start: failed.id, prepare: failed.id, gate: null, after: null });
    expect(carried(res.body.nodes)).toEqual({ start: failed.id, prepare: failed.id, gate: null, after: null });
    // The run retried carried nothing over.
    const original = await request(h.app).get(`/api/runs/${failed.id}/steps`).set("Cookie", h.cookie);
    expect(Object.values(carried(original.body.items)).every((from) => from === null)).toBe(true);

    // The list marks both: the retry names the run it retries, which counts its retries and says why it failed.
    const again = await request(h.app).post(`/api/runs/${failed.id}/retry`).set("Cookie", h.cookie);
    await h.waitForEnd(again.body.run_id);
    const listed = await request(h.app).get(`/api/runs?flow_id=${flowId}`).set("Cookie", h.cookie);
    const byId = new Map(listed.body.items.map((item: { id: string }) => [item.id, item]));
    expect(byId.get(failed.id)).toMatchObject({
      rerun_of: null,
      reruns: 2,
      error: expect.stringMatching(/^gate: \S/),
    });
    expect(byId.get(run.id)).toMatchObject({ trigger: "retry", rerun_of: failed.id, reruns: 0, error: null });
    expect(byId.get(again.body.run_id)).toMatchObject({ rerun_of: failed.id, reruns: 0 });
  });

  it("reads a run's log entries by node", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "hello", type: "log", config: { message: "hello" } },
          { id: "bye", type: "log", config: { message: "bye", level: "warn" } },
        ],
        [
          ["start", "hello"],
          ["hello", "bye"],
        ],
      ),
    );
    const run = await h.runToEnd(flowId);
    const read = async (query: string) => {
      const res = await request(h.app).get(`/api/logs?run_id=${run.id}${query}`).set("Cookie", h.cookie);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.items.map((entry: { node_id: string; message: string }) => `${entry.node_id}: ${entry.message}`);
    };
    expect(await read("")).toEqual(["bye: bye", "hello: hello"]);
    expect(await read("&node_id=hello")).toEqual(["hello: hello"]);
    expect(await read("&node_id=bye&level=error")).toEqual([]);
    const bad = await request(h.app).get("/api/logs?node_id=not%20a%20node").set("Cookie", h.cookie);
    expect(bad.status).toBe(400);
  });

  it("deletes a finished run with its steps and logs, and refuses a running one", async () => {
    const slow = await h.createFlow(
      flow([{ id: "wait", type: "delay", config: { duration: "1h" } }], [["start", "wait"]]),
    );
    const runningId = (await h.startRun(slow)).body.run_id;
    const refused = await request(h.app).delete(`/api/runs/${runningId}`).set("Cookie", h.cookie);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("run_running");
    await request(h.app).post(`/api/runs/${runningId}/cancel`).set("Cookie", h.cookie);
    await h.waitForEnd(runningId);

    const logged = await h.createFlow(
      flow([{ id: "say", type: "log", config: { message: "bye" } }], [["start", "say"]]),
    );
    const run = await h.runToEnd(logged);
    const deleted = await request(h.app).delete(`/api/runs/${run.id}`).set("Cookie", h.cookie);
    expect(deleted.body).toEqual({ ok: true });
    expect((await request(h.app).get(`/api/runs/${run.id}`).set("Cookie", h.cookie)).status).toBe(404);
    expect(await testPrisma().runStep.count({ where: { runId: run.id } })).toBe(0);
    expect(await testPrisma().logEntry.count({ where: { runId: run.id } })).toBe(0);
  });

  it("keeps runs of other workspaces out of sight", async () => {
    const flowId = await h.createFlow(echo());
    const run = await h.runToEnd(flowId, { n: 5 });
    const other = await createTestUser("peeker");
    const { cookie } = await login(h.app, other.email);
    for (const path of [`/api/runs/${run.id}`, `/api/runs/${run.id}/steps`]) {
      expect((await request(h.app).get(path).set("Cookie", cookie)).status).toBe(404);
    }
    expect((await request(h.app).post(`/api/runs/${run.id}/retry`).set("Cookie", cookie)).status).toBe(404);
    expect((await request(h.app).delete(`/api/runs/${run.id}`).set("Cookie", cookie)).status).toBe(404);
    expect((await request(h.app).get("/api/runs").set("Cookie", cookie)).body.items).toEqual([]);
    expect((await request(h.app).get(`/api/logs?run_id=${run.id}`).set("Cookie", cookie)).body.items).toEqual([]);
  });

  it("starts each run with the flow as it is then: renamed, deactivated, reactivated", async () => {
    const flowId = await h.createFlow(echo(), "Before");
    expect((await h.runToEnd(flowId, { n: 1 })).flow_name).toBe("Before");
    const { body } = await request(h.app).get(`/api/flows/${flowId}`).set("Cookie", h.cookie);
    const edit = (change: object) =>
      request(h.app)
        .put(`/api/flows/${flowId}`)
        .set("Cookie", h.cookie)
        .send({ version: 1, definition: body.definition, ...change });

    expect((await edit({ name: "After" })).status).toBe(200);
    const renamed = await h.runToEnd(flowId, { n: 2 });
    expect(renamed).toMatchObject({ flow_name: "After", version: 1, output: { value: 2 } });
    const started = await testPrisma().event.findFirstOrThrow({
      where: { type: "run.started", payload: { path: ["data", "run_id"], equals: renamed.id } },
    });
    expect(started.payload).toMatchObject({ data: { workflow_name: "After" } });

    expect((await edit({ status: "inactive" })).status).toBe(200);
    const refused = await h.startRun(flowId);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: "flow_not_active" });
    expect(await testPrisma().run.count({ where: { flowId } })).toBe(2);

    expect((await edit({ status: "active" })).status).toBe(200);
    expect(await h.runToEnd(flowId, { n: 3 })).toMatchObject({ status: "success", flow_name: "After" });
  });

  it("pins the version a run started on", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "wait", type: "delay", config: { duration: "2s" } },
          { id: "echo", type: "test_echo", config: { value: "v1" } },
        ],
        [
          ["start", "wait"],
          ["wait", "echo"],
        ],
      ),
    );
    const runId = (await h.startRun(flowId)).body.run_id;
    const { body } = await request(h.app).get(`/api/flows/${flowId}`).set("Cookie", h.cookie);
    const edited = structuredClone(body.definition);
    edited.nodes.find((n: { id: string }) => n.id === "echo").config.value = "v2";
    const updated = await request(h.app)
      .put(`/api/flows/${flowId}`)
      .set("Cookie", h.cookie)
      .send({ version: 1, definition: edited });
    expect(updated.body.version).toBe(2);
    const run = await h.waitForEnd(runId);
    expect(run).toMatchObject({ version: 1, output: { value: "v1" } });
    expect((await h.runToEnd(flowId)).output).toMatchObject({ value: "v2" });
  });
});
