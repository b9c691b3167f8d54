import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { WorkflowFailedError } from "@temporalio/client";
import type { ApplicationFailure } from "@temporalio/common";
import { describe, expect, it } from "vitest";
import { brokenSwitches, executions } from "../../test/fixtures/test-nodes.js";
import { testPrisma, testTemporalClient, testSeal } from "../../test/helpers/context.js";
import { exportedHistory } from "../../test/helpers/histories.js";
import { flow, useRunHarness } from "../../test/helpers/runs.js";
import { reconcileRuns } from "../reconcile-runs.js";
import { createBlobStore } from "../../core/runs/records/blobs.js";
import { systemClock } from "../../lib/clock.js";
import { RUN_FAILED_ERROR } from "../../core/contracts/run-flow.js";

const h = useRunHarness();

const byNode = <S extends { node_id: string }>(steps: S[]): Record<string, S> =>
  Object.fromEntries(steps.map((s) => [s.node_id, s]));
/** The types of the events the run emitted. */
const runEventTypes = async (runId: string) =>
  (
    await testPrisma().event.findMany({
      where: { workspaceId: h.workspaceId, payload: { path: ["data", "run_id"], equals: runId } },
    })
  ).map((e) => e.type);
/** The events of the run's workflow history. */
const historyEvents = async (runId: string) => {
  const client = await testTemporalClient();
  const history = await client.workflow
    .getHandle(runId)
    .fetchHistory()
    .finally(() => client.connection.close());
  return history.events!;
};
type HistoryEvent = Awaited<ReturnType<typeof historyEvents>>[number];
/** The local activity a marker event records: its type and the summary the workflow gave it. */
const localActivityOf = (event: HistoryEvent) => {
  const data = event.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
  const summary = event.userMetadata?.summary?.data;
  return {
    type: (JSON.parse(Buffer.from(data!).toString("utf8")) as { activity_type: string }).activity_type,
    summary: summary ? (JSON.parse(Buffer.from(summary).toString("utf8")) as string) : undefined,
  };
};
const localActivities = async (runId: string) =>
  (await historyEvents(runId))
    .filter((e) => e.markerRecordedEventAttributes?.markerName === "core_local_activity")
    .map(localActivityOf);
const BOOKKEEPING = new Set(["recordSteps", "completeStep", "finalizeRun"]);
/** How many bookkeeping local activities (not nodes) the run's workflow ran. */
const localActivityCount = async (runId: string) =>
  (await localActivities(runId)).filter((activity) => BOOKKEEPING.has(activity.type)).length;
const interval = (step: Record<string, unknown>) => [
  Date.parse(step.started_at as string),
  Date.parse(step.finished_at as string),
];

describe("runFlow: the engine through the API, on a real worker", () => {
  it("runs manual → log → debug, records every step and writes the log through env.log", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "say",
            type: "log",
            config: { level: "warn", message: "hello {{ input.name }} from {{ run.flow_id }}" },
          },
          { id: "inspect", type: "debug", config: { label: "after say" } },
        ],
        [
          ["start", "say"],
          ["say", "inspect"],
        ],
      ),
    );
    const run = await h.runToEnd(flowId, { name: "Ada" });
    expect(run).toMatchObject({ status: "success", output: { name: "Ada" }, flow_id: flowId, version: 1, error: null });
    expect(run.duration_ms).toEqual(expect.any(Number));

    const steps = await h.steps(run.id);
    expect(steps.map((s) => [s.node_id, s.type, s.status, s.attempt])).toEqual([
      ["start", "manual", "success", 1],
      ["say", "log", "success", 1],
      ["inspect", "debug", "success", 1],
    ]);
    for (const step of steps) {
      expect(step).toMatchObject({
        started_at: expect.any(String),
        finished_at: expect.any(String),
        duration_ms: expect.any(Number),
        error: null,
      });
    }

    const logs = await request(h.app).get(`/api/logs?run_id=${run.id}`).set("Cookie", h.cookie);
    expect(
      logs.body.items.map((l: { message: string; node_id: string; level: string }) => [l.node_id, l.level, l.message]),
    ).toEqual([
      ["inspect", "debug", "debug: after say"],
      ["say", "warn", `hello Ada from ${flowId}`],
    ]);
    const warnings = await request(h.app).get(`/api/logs?run_id=${run.id}&level=warn`).set("Cookie", h.cookie);
    expect(warnings.body.items).toHaveLength(1);
  });

  it("follows the condition's branch and skips the path not taken", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "check",
            type: "condition",
            config: { left: "{{ input.amount }}", operator: "greater_than", right: 100 },
          },
          { id: "big", type: "test_echo", config: { value: "big" } },
          { id: "small", type: "test_echo", config: { value: "small" } },
          { id: "after_small", type: "debug" },
        ],
        [
          ["start", "check"],
          ["check", "big", "true"],
          ["check", "small", "false"],
          ["small", "after_small"],
        ],
      ),
    );
    const large = await h.runToEnd(flowId, { amount: 250 });
    expect(large.status).toBe("success");
    const steps = byNode(await h.steps(large.id));
    expect(steps.check).toMatchObject({ status: "success", branch: "true" });
    expect(steps.big).toMatchObject({ status: "success", output: { input: { amount: 250 }, value: "big" } });
    expect(steps.small).toMatchObject({ status: "skipped", started_at: null });
    expect(steps.after_small).toMatchObject({ status: "skipped" });
    expect(large.output).toEqual({ input: { amount: 250 }, value: "big" });

    const small = await h.runToEnd(flowId, { amount: 5 });
    const smallSteps = byNode(await h.steps(small.id));
    expect(smallSteps.big!.status).toBe("skipped");
    expect(smallSteps.after_small!.status).toBe("success");
  });

  it("routes a branch node by case, with default for the rest", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "kind", type: "branch", config: { value: "{{ input.kind }}", cases: ["bug", "feature"] } },
          { id: "bug", type: "test_echo", config: { value: "bug path" } },
          { id: "other", type: "test_echo", config: { value: "default path" } },
        ],
        [
          ["start", "kind"],
          ["kind", "bug", "bug"],
          ["kind", "other", "default"],
        ],
      ),
    );
    const bug = await h.runToEnd(flowId, { kind: "bug" });
    expect((bug.output as { value: string }).value).toBe("bug path");
    const question = await h.runToEnd(flowId, { kind: "question" });
    expect((question.output as { value: string }).value).toBe("default path");
    expect(byNode(await h.steps(question.id)).bug!.status).toBe("skipped");
  });

  it("runs independent branches in parallel and merges their outputs", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "left", type: "test_sleep", config: { ms: 1500 } },
          { id: "right", type: "test_sleep", config: { ms: 1500 } },
          { id: "both", type: "merge", config: { mode: "object" } },
          { id: "list", type: "merge", config: { mode: "array" } },
        ],
        [
          ["start", "left"],
          ["start", "right"],
          ["left", "both"],
          ["right", "both"],
          ["right", "list"],
          ["left", "list"],
        ],
      ),
    );
    const run = await h.runToEnd(flowId);
    expect(run.status).toBe("success");
    expect(run.output).toEqual({
      both: { left: { slept: 1500 }, right: { slept: 1500 } },
      list: [{ slept: 1500 }, { slept: 1500 }],
    });
    const steps = byNode(await h.steps(run.id));
    const [leftStart, leftEnd] = interval(steps.left!);
    const [rightStart, rightEnd] = interval(steps.right!);
    // The two sleeps overlap in time: neither waited for the other.
    expect(leftStart!).toBeLessThan(rightEnd!);
    expect(rightStart!).toBeLessThan(leftEnd!);
  });

  it("gives a node with several parents an input keyed by parent id", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "a", type: "test_echo", config: { value: 1 } },
          { id: "b", type: "test_echo", config: { value: 2 } },
          { id: "join", type: "test_echo", config: { value: "{{ nodes.a.value }}+{{ nodes.b.value }}" } },
        ],
        [
          ["start", "a"],
          ["start", "b"],
          ["a", "join"],
          ["b", "join"],
        ],
      ),
    );
    const run = await h.runToEnd(flowId, { x: 1 });
    expect(run.output).toEqual({
      input: { a: { input: { x: 1 }, value: 1 }, b: { input: { x: 1 }, value: 2 } },
      value: "1+2",
    });
  });

  it("waits on a durable timer for a delay node, with the steps before it in the log meanwhile", async () => {
    const flowId = await h.createFlow(
      flow([{ id: "wait", type: "delay", config: { duration: "2s" } }], [["start", "wait"]]),
    );
    const started = await h.startRun(flowId, { after: "delay" });
    expect(started.status).toBe(201);
    // While the timer runs, the entry node (local, its row written before the wait) is logged.
    await expect
      .poll(async () => (await h.steps(started.body.run_id)).map((s) => [s.node_id, s.status]), { timeout: 1500 })
      .toEqual([
        ["start", "success"],
        ["wait", "running"],
      ]);
    const run = await h.waitForEnd(started.body.run_id);
    expect(run).toMatchObject({ status: "success", output: { after: "delay" } });
    const wait = byNode(await h.steps(run.id)).wait!;
    expect(wait.status).toBe("success");
    expect(wait.duration_ms as number).toBeGreaterThanOrEqual(2000);
  });

  it("runs a loop's flow once per item as child runs and keeps item order", async () => {
    const child = await h.createFlow(
      flow(
        [{ id: "double", type: "test_echo", config: { value: "{{ input.n }}{{ input.n }}" } }],
        [["start", "double"]],
      ),
      "Child",
    );
    const flowId = await h.createFlow(
      flow(
        [{ id: "each", type: "loop", config: { items: "{{ input.items }}", flow_id: child, concurrency: 2 } }],
        [["start", "each"]],
      ),
    );
    const run = await h.runToEnd(flowId, { items: [{ n: 1 }, { n: 2 }, { n: 3 }] });
    expect(run.status).toBe("success");
    expect((run.output as Array<{ value: string }>).map((o) => o.value)).toEqual(["11", "22", "33"]);
    const children = await testPrisma().run.findMany({ where: { parentRunId: run.id }, orderBy: { input: "asc" } });
    expect(children).toHaveLength(3);
    expect(children.every((c) => c.status === "success" && c.trigger === "loop" && c.flowId === child)).toBe(true);
  });

  it("retries a failing node per its policy, then succeeds", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "flaky",
            type: "test_fail",
            config: { failures: 2 },
            retry: { max_attempts: 3, initial_interval_ms: 100 },
          },
        ],
        [["start", "flaky"]],
      ),
    );
    const run = await h.runToEnd(flowId);
    expect(run).toMatchObject({ status: "success", output: { attempt: 3 } });
    const flaky = (await h.steps(run.id)).filter((s) => s.node_id === "flaky");
    expect(flaky.map((s) => [s.attempt, s.status])).toEqual([
      [1, "failed"],
      [2, "failed"],
      [3, "success"],
    ]);
    expect(flaky[0]!.error).toMatchObject({ message: "planned failure 1 of 2", type: "NodeError", retryable: true });
  });

  it("gives a heartbeat timeout to nodes allowed over a minute, and to those only", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "quick", type: "test_echo", config: { value: 1 } },
          { id: "long", type: "test_echo", config: { value: 2 }, timeout_ms: 120_000 },
        ],
        [
          ["start", "quick"],
          ["quick", "long"],
        ],
      ),
    );
    const run = await h.runToEnd(flowId);
    expect(run.status).toBe("success");
    const events = await historyEvents(run.id);
    const scheduled = events.flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes] : [],
    );
    const seconds = (duration?: { seconds?: unknown } | null) => Number(duration?.seconds ?? 0);
    // In chain order: the utility node (60 s) relies on its own timeout; the node allowed two
    // minutes has a heartbeat timeout. The manual entry node ran in the workflow itself.
    expect(
      scheduled.map((a) => [a.activityType!.name, seconds(a.startToCloseTimeout), seconds(a.heartbeatTimeout)]),
    ).toEqual([
      ["test_echo", 60, 0],
      ["test_echo", 120, 20],
    ]);
    expect(await localActivities(run.id)).toEqual([]);
  });

  it("fails the run after the last attempt, names the node, and skips what follows", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "broken",
            type: "test_fail",
            config: { failures: 9 },
            retry: { max_attempts: 2, initial_interval_ms: 100 },
          },
          { id: "never", type: "debug" },
        ],
        [
          ["start", "broken"],
          ["broken", "never"],
        ],
      ),
    );
    const run = await h.runToEnd(flowId);
    expect(run).toMatchObject({
      status: "failed",
      output: null,
      error: { node_id: "broken", message: "planned failure 2 of 9" },
    });
    const steps = await h.steps(run.id);
    expect(steps.filter((s) => s.node_id === "broken").map((s) => s.status)).toEqual(["failed", "failed"]);
    expect(byNode(steps).never!.status).toBe("skipped");

    // Temporal says so too: the workflow ends Failed with the node's error, after the record.
    const handle = h.deps.temporal.workflow.getHandle(run.id);
    const failure = await handle.result().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause).toMatchObject({ type: RUN_FAILED_ERROR, message: "node broken: planned failure 2 of 9" });
    expect(cause.details?.[0]).toMatchObject({ runId: run.id, status: "failed", error: { node_id: "broken" } });
    expect((await handle.describe()).status.name).toBe("FAILED");
  });

  it("fails a loop's node when an item's child run fails, the child's workflow Failed too", async () => {
    const child = await h.createFlow(
      flow([{ id: "boom", type: "test_fail", config: { failures: 9, fatal: true } }], [["start", "boom"]]),
      "Failing child",
    );
    const flowId = await h.createFlow(
      flow([{ id: "each", type: "loop", config: { items: "{{ input.items }}", flow_id: child } }], [["start", "each"]]),
    );
    const run = await h.runToEnd(flowId, { items: [1] });
    expect(run).toMatchObject({ status: "failed", error: { node_id: "each" } });
    expect((run.error as { message: string }).message).toMatch(
      /^item 0 \(run run_\w+\) failed: planned failure 1 of 9$/,
    );
    const [childRun] = await testPrisma().run.findMany({ where: { parentRunId: run.id } });
    expect(childRun).toMatchObject({ status: "failed" });
    // The records end first, their workflows a moment later.
    const temporalStatus = async (id: string) => (await h.deps.temporal.workflow.getHandle(id).describe()).status.name;
    await expect.poll(() => temporalStatus(childRun!.id)).toBe("FAILED");
    await expect.poll(() => temporalStatus(run.id)).toBe("FAILED");
  });

  it("does not retry a non-retryable failure or a config that is invalid once rendered", async () => {
    const fatal = await h.createFlow(
      flow([{ id: "fatal", type: "test_fail", config: { failures: 1, fatal: true } }], [["start", "fatal"]]),
    );
    const fatalRun = await h.runToEnd(fatal);
    expect(fatalRun.status).toBe("failed");
    expect((await h.steps(fatalRun.id)).filter((s) => s.node_id === "fatal")).toHaveLength(1);

    const badConfig = await h.createFlow(
      flow([{ id: "wait", type: "delay", config: { duration: "{{ input.wait }}" } }], [["start", "wait"]]),
    );
    const badRun = await h.runToEnd(badConfig, { wait: "forever" });
    expect(badRun.status).toBe("failed");
    expect((badRun.error as { message: string }).message).toMatch(/^Invalid config of node "wait": duration: /);
    const wait = (await h.steps(badRun.id)).filter((s) => s.node_id === "wait");
    expect(wait).toHaveLength(1);
    expect(wait[0]!.error).toMatchObject({ type: "NodeConfigError", retryable: false });
  });

  it("cancels a running run: it ends as cancelled and says so with run.failed", async () => {
    const flowId = await h.createFlow(
      flow([{ id: "wait", type: "delay", config: { duration: "1h" } }], [["start", "wait"]]),
    );
    const started = await h.startRun(flowId);
    const runId = started.body.run_id as string;
    await expect.poll(async () => byNode(await h.steps(runId)).wait?.status, { timeout: 15_000 }).toBe("running");

    const cancel = await request(h.app).post(`/api/runs/${runId}/cancel`).set("Cookie", h.cookie);
    expect(cancel.status).toBe(202);
    expect(cancel.body).toEqual({ run_id: runId, status: "cancelling" });
    const run = await h.waitForEnd(runId);
    expect(run).toMatchObject({ status: "cancelled", error: { message: "The run was cancelled" } });
    expect(byNode(await h.steps(runId)).wait!.status).toBe("failed");

    const again = await request(h.app).post(`/api/runs/${runId}/cancel`).set("Cookie", h.cookie);
    expect(again.status).toBe(409);
    const end = await testPrisma().event.findFirst({
      where: { type: "run.failed", payload: { path: ["data", "run_id"], equals: runId } },
    });
    expect(end?.payload).toMatchObject({ data: { status: "cancelled" } });
    await expect
      .poll(async () => (await h.deps.temporal.workflow.getHandle(runId).describe()).status.name)
      .toBe("CANCELLED");
  });

  it("lists every node right after the cancel: the nodes that never started are skipped with the run's end", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "wait", type: "delay", config: { duration: "1h" } },
          { id: "then", type: "test_sleep", config: { ms: 1 } },
          { id: "last", type: "test_sleep", config: { ms: 1 } },
        ],
        [
          ["start", "wait"],
          ["wait", "then"],
          ["then", "last"],
        ],
      ),
    );
    const runId = (await h.startRun(flowId)).body.run_id as string;
    await expect.poll(async () => byNode(await h.steps(runId)).wait?.status, { timeout: 15_000 }).toBe("running");

    const statuses = (rows: Awaited<ReturnType<typeof h.steps>>) =>
      rows.map((step) => [step.node_id, step.status]).sort();
    const expected = [
      ["last", "skipped"],
      ["start", "success"],
      ["then", "skipped"],
      ["wait", "failed"],
    ];
    // No worker while the cancel answers and the steps are read: the run's workflow cannot wind
    // down and write its rows before the read, however fast the machine.
    await h.restartWorker(async (stopped) => {
      await stopped;
      const cancel = await request(h.app).post(`/api/runs/${runId}/cancel`).set("Cookie", h.cookie);
      expect(cancel.status).toBe(202);
      const run = await request(h.app).get(`/api/runs/${runId}`).set("Cookie", h.cookie);
      expect(run.body.run.status).toBe("cancelled");
      expect(statuses(await h.steps(runId))).toEqual(expected);
    });

    // The workflow's own end, once a worker runs it, changes none of it.
    await expect
      .poll(async () => (await h.deps.temporal.workflow.getHandle(runId).describe()).status.name)
      .toBe("CANCELLED");
    expect(statuses(await h.steps(runId))).toEqual(expected);
  });

  it("retries a failed run from the failed node, reusing what succeeded", async () => {
    const key = randomUUID();
    brokenSwitches.add(key);
    const flowId = await h.createFlow(
      flow(
        [
          { id: "count", type: "test_count", config: { key } },
          { id: "gate", type: "test_switch", config: { key } },
          { id: "after", type: "test_echo", config: { value: "{{ nodes.count.count }}" } },
        ],
        [
          ["start", "count"],
          ["count", "gate"],
          ["gate", "after"],
        ],
      ),
    );
    const failed = await h.runToEnd(flowId, { order: 7 });
    expect(failed).toMatchObject({ status: "failed", error: { node_id: "gate" } });
    expect(executions.get(key)).toBe(1);

    brokenSwitches.delete(key);
    const retry = await request(h.app).post(`/api/runs/${failed.id}/retry`).set("Cookie", h.cookie);
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ status: "running", retry_of: failed.id });
    const run = await h.waitForEnd(retry.body.run_id);
    expect(run).toMatchObject({ status: "success", retry_of: failed.id, trigger: "retry" });
    expect((run.output as { value: number }).value).toBe(1);
    expect(executions.get(key)).toBe(1); // count was not executed again
    const steps = byNode(await h.steps(run.id));
    expect(steps.count).toMatchObject({ status: "success", output: { key, count: 1, input: { order: 7 } } });
    expect(steps.gate!.status).toBe("success");

    const notAgain = await request(h.app).post(`/api/runs/${run.id}/retry`).set("Cookie", h.cookie);
    expect(notAgain.status).toBe(409);
  });

  it("retries a run whose reused node's output is large: the retry gets its own copy of it", async () => {
    const key = randomUUID();
    brokenSwitches.add(key);
    const flowId = await h.createFlow(
      flow(
        [
          { id: "big", type: "test_big", config: { bytes: 400_000 } },
          { id: "gate", type: "test_switch", config: { key } },
          { id: "measure", type: "test_echo", config: { value: "{{ nodes.big.data }}" } },
        ],
        [
          ["start", "big"],
          ["big", "gate"],
          ["gate", "measure"],
        ],
      ),
    );
    const failed = await h.runToEnd(flowId);
    expect(failed.status).toBe("failed");
    brokenSwitches.delete(key);
    const retry = await request(h.app).post(`/api/runs/${failed.id}/retry`).set("Cookie", h.cookie);
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    // The failed run is deleted: the retry must not depend on its rows.
    expect((await request(h.app).delete(`/api/runs/${failed.id}`).set("Cookie", h.cookie)).status).toBe(200);
    const run = await h.waitForEnd(retry.body.run_id);
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    expect(((run.output as { value: string }).value as string).length).toBe(400_000);
    const copies = await testPrisma().runBlob.findMany({ where: { runId: run.id, nodeId: "big" } });
    expect(copies).toHaveLength(1);
  });

  it("passes outputs above the threshold by reference, so Temporal's payload limit never fails a run", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "big", type: "test_big", config: { bytes: 3_000_000 } },
          { id: "measure", type: "test_echo", config: { value: "{{ nodes.big.data }}" } },
          { id: "tail", type: "debug" },
        ],
        [
          ["start", "big"],
          ["big", "measure"],
          ["measure", "tail"],
        ],
      ),
    );
    const run = await h.runToEnd(flowId);
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    expect(((run.output as { value: string }).value as string).length).toBe(3_000_000);
    const blobs = await testPrisma().runBlob.findMany({
      where: { runId: run.id },
      select: { nodeId: true, bytes: true },
    });
    expect(blobs.map((b) => b.nodeId).sort()).toEqual(expect.arrayContaining(["big", "measure"]));
    const big = byNode(await h.steps(run.id)).big!;
    expect(big.output).toEqual({ truncated: true, bytes: expect.any(Number) });
  });

  it("ends the run in the last node's commit when that node alone decides it, else in a bookkeeping step", async () => {
    /** The run's record, its steps, its end events and how many local activities its workflow ran. */
    const ended = async (flowId: string) => {
      const run = await h.runToEnd(flowId, { n: 1 });
      // The record ends inside the workflow's last task; its markers are in history once that task
      // completes, with the workflow (a failed run's workflow fails).
      await h.deps.temporal.workflow
        .getHandle(run.id)
        .result()
        .catch(() => undefined);
      return {
        run,
        steps: (await h.steps(run.id)).map((s) => [s.node_id, s.status]),
        endEvents: (await runEventTypes(run.id)).filter((type) => type !== "run.started"),
        localActivities: await localActivityCount(run.id),
      };
    };

    // A chain: its last node ends the run.
    const chain = await ended(
      await h.createFlow(
        flow(
          [
            { id: "a", type: "debug", config: {} },
            { id: "b", type: "set", config: { fields: { done: true } } },
          ],
          [
            ["start", "a"],
            ["a", "b"],
          ],
        ),
      ),
    );
    expect(chain.run).toMatchObject({ status: "success", output: { done: true }, finished_at: expect.any(String) });
    expect(chain.steps).toEqual([
      ["start", "success"],
      ["a", "success"],
      ["b", "success"],
    ]);
    expect(chain.endEvents).toEqual(["run.completed"]);
    expect(chain.localActivities).toBe(0);

    // The other sink was skipped: the last node still decides alone, and the skipped step is in its commit.
    const branched = await ended(
      await h.createFlow(
        flow(
          [
            { id: "check", type: "condition", config: { left: "{{ input.n }}", operator: "equals", right: 1 } },
            { id: "yes", type: "debug", config: {} },
            { id: "no", type: "debug", config: {} },
          ],
          [
            ["start", "check"],
            ["check", "yes", "true"],
            ["check", "no", "false"],
          ],
        ),
      ),
    );
    expect(branched.run).toMatchObject({ status: "success", output: { n: 1 } });
    expect(branched.steps).toEqual(
      expect.arrayContaining([
        ["yes", "success"],
        ["no", "skipped"],
      ]),
    );
    expect(branched.endEvents).toEqual(["run.completed"]);
    expect(branched.localActivities).toBe(0);

    // Two sinks both produce output: the workflow ends the run in a bookkeeping step.
    const twoSinks = await ended(
      await h.createFlow(
        flow(
          [
            { id: "left", type: "debug", config: {} },
            { id: "right", type: "debug", config: {} },
          ],
          [
            ["start", "left"],
            ["start", "right"],
          ],
        ),
      ),
    );
    expect(twoSinks.run).toMatchObject({ status: "success", output: { left: { n: 1 }, right: { n: 1 } } });
    expect(twoSinks.endEvents).toEqual(["run.completed"]);
    expect(twoSinks.localActivities).toBe(1);

    // The last node fails: the workflow ends the run as failed.
    const failing = await ended(
      await h.createFlow(
        flow([{ id: "fatal", type: "test_fail", config: { failures: 1, fatal: true } }], [["start", "fatal"]]),
      ),
    );
    expect(failing.run).toMatchObject({ status: "failed", error: { node_id: "fatal" } });
    expect(failing.endEvents).toEqual(["run.failed"]);
    expect(failing.localActivities).toBe(1);
  });

  it("runs quick nodes as local activities named by node, and writes their rows with the next write", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "a", name: "Shape\norder", type: "set", config: { fields: { from: "a" } } },
          { id: "nap", type: "test_sleep", config: { ms: 1500 } },
          { id: "side", type: "set", config: { fields: { from: "side" } } },
          { id: "join", type: "merge", config: { mode: "object" } },
        ],
        [
          ["start", "a"],
          ["a", "nap"],
          ["a", "side"],
          ["nap", "join"],
          ["side", "join"],
        ],
      ),
    );
    const runId = (await h.startRun(flowId)).body.run_id as string;
    // While the regular node sleeps, the local nodes before it and beside it are in the step log.
    await expect.poll(async () => byNode(await h.steps(runId)).nap?.status, { timeout: 15_000 }).toBe("running");
    await expect
      .poll(async () => {
        const steps = byNode(await h.steps(runId));
        return ["start", "a", "side"].map((id) => steps[id]?.status);
      })
      .toEqual(["success", "success", "success"]);
    expect(byNode(await h.steps(runId)).nap?.status).toBe("running");

    const run = await h.waitForEnd(runId);
    expect(run).toMatchObject({ status: "success", output: { nap: { slept: 1500 }, side: { from: "side" } } });
    const steps = byNode(await h.steps(runId));
    for (const id of ["start", "a", "side", "join"]) {
      expect(steps[id], id).toMatchObject({ status: "success", attempt: 1 });
      expect(steps[id]!.duration_ms).toBe(
        Date.parse(steps[id]!.finished_at as string) - Date.parse(steps[id]!.started_at as string),
      );
    }
    expect(steps.a!.output).toEqual({ from: "a" });

    // Only the sleep went through the server; the trigger needs no activity (its output is the
    // run's input); every other node is a local activity named by its id (and name); the rows of
    // "start" and "a" went with the sleep's start, those of "side" were written while it ran
    // (recordSteps).
    const events = await historyEvents(runId);
    const scheduled = events.flatMap((e) =>
      e.activityTaskScheduledEventAttributes
        ? [[e.activityTaskScheduledEventAttributes.activityType!.name, e.userMetadata?.summary?.data]]
        : [],
    );
    expect(
      scheduled.map(([type, summary]) => [type, JSON.parse(Buffer.from(summary as Uint8Array).toString())]),
    ).toEqual([["test_sleep", "nap"]]);
    expect(await localActivities(runId)).toEqual([
      { type: "set", summary: "a: Shape order" },
      { type: "set", summary: "side" },
      { type: "recordSteps", summary: undefined },
      { type: "merge", summary: "join" },
    ]);
  });

  // The replay fixture of a run whose trigger the workflow resolved itself (workflows.replay.test.ts).
  // Set RECORD_HISTORY=1 to record it again, after a change that earlier histories must not see.
  it("resolves the trigger in the workflow, without an activity, and writes its step with the next write", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "x", type: "set", config: { fields: { x: "{{ input.a }}" } } },
          { id: "y", type: "set", config: { fields: { y: "{{ input.x }}" } } },
        ],
        [
          ["start", "x"],
          ["x", "y"],
        ],
      ),
    );
    const run = await h.runToEnd(flowId, { a: "hello" });
    expect(run).toMatchObject({ status: "success", output: { y: "hello" } });
    const steps = byNode(await h.steps(run.id));
    expect(steps.start).toMatchObject({ status: "success", attempt: 1, output: { a: "hello" } });
    expect(steps.start!.started_at).toBe(steps.start!.finished_at);
    expect(Date.parse(steps.start!.started_at as string)).toBeLessThanOrEqual(
      Date.parse(steps.x!.started_at as string),
    );
    // One workflow task: a marker per node after the trigger, nothing through the server.
    const events = await historyEvents(run.id);
    expect(events.filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(1);
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(0);
    expect(await localActivities(run.id)).toEqual([
      { type: "set", summary: "x" },
      { type: "set", summary: "y" },
    ]);
    if (process.env.RECORD_HISTORY === "1") {
      const fixture = new URL("./histories/trigger-in-workflow.runFlow.chain.json", import.meta.url);
      // Stack traces name the checkout: written as /app, as in the other fixtures.
      const checkout = fileURLToPath(new URL("../../", import.meta.url));
      const json = JSON.stringify(JSON.parse(await exportedHistory(h.deps.temporal, run.id)), null, 2);
      writeFileSync(fixture, `${json.replaceAll(checkout, "/app/")}\n`);
    }

    // A flow of only its trigger: the run's end writes the trigger's row.
    const alone = await h.runToEnd(await h.createFlow(flow([], [])), { only: true });
    expect(alone).toMatchObject({ status: "success", output: { only: true } });
    expect(await h.steps(alone.id)).toMatchObject([{ node_id: "start", status: "success", output: { only: true } }]);
    expect(await localActivities(alone.id)).toEqual([{ type: "finalizeRun", summary: undefined }]);
  });

  it("restores a step row that never landed before the run ends, and ends the run only then", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "first", type: "set", config: { fields: { from: "first" } } },
          { id: "nap", type: "test_sleep", config: { ms: 1500 } },
        ],
        [
          ["start", "first"],
          ["first", "nap"],
        ],
      ),
    );
    const runId = (await h.startRun(flowId)).body.run_id as string;
    await expect.poll(async () => byNode(await h.steps(runId)).nap?.status, { timeout: 15_000 }).toBe("running");
    // As if the worker had died before the write that follows an activity's answer landed.
    const lost = await testPrisma().runStep.deleteMany({ where: { runId, nodeId: "first" } });
    expect(lost.count).toBe(1);

    const run = await h.waitForEnd(runId);
    expect(run).toMatchObject({ status: "success", output: { slept: 1500 } });
    const steps = byNode(await h.steps(runId));
    expect(steps.first).toMatchObject({ status: "success", attempt: 1, output: { from: "first" } });
    expect(steps.first!.duration_ms).toBe(
      Date.parse(steps.first!.finished_at as string) - Date.parse(steps.first!.started_at as string),
    );
    expect(steps.nap).toMatchObject({ status: "success" });
    // The last node found the row missing and left the run to the workflow's bookkeeping step.
    expect(await localActivityCount(runId)).toBe(1);
    expect((await runEventTypes(runId)).sort()).toEqual(["run.completed", "run.started"]);
  });

  it("keeps a run cancelled while its last node runs cancelled, even when that node then succeeds", async () => {
    const flowId = await h.createFlow(
      flow([{ id: "nap", type: "test_sleep", config: { ms: 1500 } }], [["start", "nap"]]),
    );
    const runId = (await h.startRun(flowId)).body.run_id as string;
    await expect.poll(async () => byNode(await h.steps(runId)).nap?.status, { timeout: 15_000 }).toBe("running");
    const cancel = await request(h.app).post(`/api/runs/${runId}/cancel`).set("Cookie", h.cookie);
    expect(cancel.status).toBe(202);
    const run = await h.waitForEnd(runId);
    expect(run).toMatchObject({ status: "cancelled" });
    // The sleep outlives the cancellation (it hears of it only at its next heartbeat) and then
    // tries to end the run as a success: nothing changes.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect((await h.waitForEnd(runId)).status).toBe("cancelled");
    expect(byNode(await h.steps(runId)).nap).toMatchObject({ status: "failed" });
    expect((await runEventTypes(runId)).sort()).toEqual(["run.failed", "run.started"]);
  });

  it("ends a run whose workflow was terminated from outside (reconciliation)", async () => {
    const flowId = await h.createFlow(
      flow([{ id: "wait", type: "delay", config: { duration: "1h" } }], [["start", "wait"]]),
    );
    const runId = (await h.startRun(flowId)).body.run_id as string;
    await expect.poll(async () => byNode(await h.steps(runId)).wait?.status, { timeout: 15_000 }).toBe("running");
    const client = await testTemporalClient();
    try {
      await client.workflow.getHandle(runId).terminate("operator stopped it");
      const blobs = createBlobStore({ prisma: testPrisma(), offloadBytes: 262_144, seal: testSeal });
      const ended = await reconcileRuns(
        { prisma: testPrisma(), clock: systemClock, temporal: client, blobs },
        { minAgeMs: 0 },
      );
      expect(ended).toBeGreaterThanOrEqual(1);
    } finally {
      await client.connection.close();
    }
    const run = await h.waitForEnd(runId, 1000);
    expect(run).toMatchObject({ status: "failed", error: { message: "The run's workflow was terminated" } });
    expect(byNode(await h.steps(runId)).wait!.status).toBe("failed");
  });
});
