// A flow's debounce on the real dev server (core/runs/start/debounce.ts): hook calls within the
// period of each other, per key, collapse into one run with the last body, and every answer
// names that run; a call after the window closed opens a new run; a cancelled pending run drops
// its window; bad settings answer 400 naming definition.debounce.*.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { historyToJSON } from "@temporalio/common/lib/proto-utils.js";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createJsonSeal } from "../../../lib/crypto/sealed-json.js";
import { testPrisma } from "../../../test/helpers/context.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const h = useRunHarness();

/** A hook flow (its trigger's output is the run's output through a debug node) with the given debounce. */
async function debouncedHook(debounce: object, hookConfig: object = {}, settings: object = {}) {
  const definition = {
    ...flow([{ id: "after", type: "debug" }], [["start", "after"]]),
    debounce,
    ...settings,
  };
  definition.nodes[0] = { id: "start", type: "http_trigger", config: hookConfig } as (typeof definition.nodes)[0];
  const flowId = await h.createFlow(definition);
  const detail = await request(h.app).get(`/api/flows/${flowId}`).set("Cookie", h.cookie);
  return { flowId, path: detail.body.hook.path as string };
}

/**
 * The replay fixtures of a debounced run (worker/workflows/workflows.replay.test.ts). Set
 * RECORD_HISTORY=1 to record them again, after a change that earlier histories must not see.
 */
async function recordHistory(runId: string, file: string): Promise<void> {
  if (process.env.RECORD_HISTORY !== "1") return;
  const handle = h.deps.temporal.workflow.getHandle(runId);
  await handle.result().catch(() => undefined);
  const checkout = fileURLToPath(new URL("../../../", import.meta.url));
  writeFileSync(
    new URL(`../../../worker/workflows/histories/${file}`, import.meta.url),
    `${JSON.stringify(JSON.parse(historyToJSON(await handle.fetchHistory())), null, 2).replaceAll(checkout, "/app/")}\n`,
  );
}

const call = (path: string, body: object) => request(h.app).post(path).send(body);
const runsOf = (flowId: string) => testPrisma().run.findMany({ where: { flowId }, orderBy: { startedAt: "asc" } });
const bodyOf = (run: { output: unknown }) => (run.output as { body: unknown }).body;

describe("debounce", () => {
  it("collapses 5 hook calls within 1 s into one run with the last body, and the 5 answers name it", async () => {
    const { flowId, path } = await debouncedHook({ period_ms: 1500 });
    const answers = [];
    const firstAt = Date.now();
    for (let i = 0; i < 5; i++) answers.push(await call(path, { i }));
    // The calls came within the period of each other (else they would rightly open a second run).
    expect(Date.now() - firstAt).toBeLessThan(1500);
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const runId = answers[0]!.body.run_id as string;
    for (const answer of answers) {
      expect(answer.body).toMatchObject({ run_id: runId, status_url: `/api/runs/${runId}`, deduplicated: false });
    }
    const run = await h.waitForEnd(runId, 30_000);
    expect(run.status).toBe("success");
    expect(bodyOf(run)).toEqual({ i: 4 });
    expect(await runsOf(flowId)).toHaveLength(1);
    // The 4 later calls are recorded as debounced into it; the window is closed.
    expect(await testPrisma().debouncedStart.count({ where: { runId } })).toBe(4);
    expect(await testPrisma().debounceWindow.count({ where: { flowId } })).toBe(0);
    // The run's record carries the input it ran with.
    const record = await testPrisma().run.findUniqueOrThrow({ where: { id: runId } });
    expect(createJsonSeal(h.deps.config.SVC_ENCRYPTION_KEY).open(record.input)).toMatchObject({ body: { i: 4 } });

    await recordHistory(runId, "debounce.runFlow.collapsed.json");

    // A call after the window closed opens a second run.
    const later = await call(path, { i: 5 });
    expect(later.status).toBe(202);
    expect(later.body.run_id).not.toBe(runId);
    const second = await h.waitForEnd(later.body.run_id as string, 30_000);
    expect(second.status).toBe("success");
    expect(bodyOf(second)).toEqual({ i: 5 });
    expect(await runsOf(flowId)).toHaveLength(2);
  }, 60_000);

  it("keeps a window per key: two customers give two runs, each with its own last body", async () => {
    const { flowId, path } = await debouncedHook({ period_ms: 1500, key: "{{ input.body.customer }}" });
    const ids: Record<string, Set<string>> = { acme: new Set(), globex: new Set() };
    for (let i = 0; i < 3; i++) {
      for (const customer of ["acme", "globex"]) {
        const answer = await call(path, { customer, i });
        expect(answer.status).toBe(202);
        ids[customer]!.add(answer.body.run_id as string);
      }
    }
    expect(ids.acme!.size).toBe(1);
    expect(ids.globex!.size).toBe(1);
    const [acme] = [...ids.acme!];
    const [globex] = [...ids.globex!];
    expect(acme).not.toBe(globex);
    expect(bodyOf(await h.waitForEnd(acme!, 30_000))).toEqual({ customer: "acme", i: 2 });
    expect(bodyOf(await h.waitForEnd(globex!, 30_000))).toEqual({ customer: "globex", i: 2 });
    expect(await runsOf(flowId)).toHaveLength(2);
  }, 60_000);

  it("answers a call whose input has no value for the key 400 naming definition.debounce.key, starting nothing", async () => {
    const { flowId, path } = await debouncedHook({ period_ms: 1000, key: "{{ input.body.customer }}" });
    const answer = await call(path, { other: 1 });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: "validation_failed", error: expect.stringContaining("debounce.key") });
    expect(JSON.stringify(answer.body)).toContain("definition.debounce.key");
    expect(await runsOf(flowId)).toHaveLength(0);
    expect(await testPrisma().debounceWindow.count({ where: { flowId } })).toBe(0);
  });

  it("cancels the pending run: it ends cancelled, nothing ran, and the next call opens a new run", async () => {
    const { flowId, path } = await debouncedHook({ period_ms: 60_000 });
    const first = await call(path, { i: 0 });
    const runId = first.body.run_id as string;
    expect((await call(path, { i: 1 })).body.run_id).toBe(runId);
    // While its window is open the run reads queued, with the reason.
    const shown = await request(h.app).get(`/api/runs/${runId}`).set("Cookie", h.cookie);
    expect(shown.body.run).toMatchObject({
      status: "queued",
      queue: { reason: "waiting for its debounce window to close (no start for 60000 ms)", key: "", position: 1 },
    });
    const cancel = await request(h.app).post(`/api/runs/${runId}/cancel`).set("Cookie", h.cookie);
    expect(cancel.status).toBe(202);
    expect((await h.waitForEnd(runId, 15_000)).status).toBe("cancelled");
    const steps = await testPrisma().runStep.findMany({ where: { runId, nodeId: "after" } });
    expect(steps.filter((s) => s.status !== "skipped")).toEqual([]);
    await recordHistory(runId, "debounce.runFlow.cancelled-while-debouncing.json");
    // Its workflow drops its window; a call before that opens a new run all the same (the window's run has ended).
    const next = await call(path, { i: 2 });
    expect(next.body.run_id).not.toBe(runId);
    await request(h.app)
      .post(`/api/runs/${next.body.run_id as string}/cancel`)
      .set("Cookie", h.cookie);
    expect((await h.waitForEnd(next.body.run_id as string, 15_000)).status).toBe("cancelled");
    await expect.poll(() => testPrisma().debounceWindow.count({ where: { flowId } }), { timeout: 10_000 }).toBe(0);
  }, 60_000);

  it("answers a sync hook's calls 202 naming the one run once its timeout passes while the window is open", async () => {
    const { path } = await debouncedHook({ period_ms: 2000 }, { mode: "sync", sync_timeout_ms: 300 });
    const [a, b] = [await call(path, { i: 0 }), await call(path, { i: 1 })];
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(b.body.run_id).toBe(a.body.run_id);
    const run = await h.waitForEnd(a.body.run_id as string, 30_000);
    expect(bodyOf(run)).toEqual({ i: 1 });
  }, 60_000);

  it("with concurrency too, the debounced run then waits at its gate with the key of its last input", async () => {
    const { flowId, path } = await debouncedHook(
      { period_ms: 500, key: "{{ input.body.customer }}" },
      {},
      { concurrency: { limit: 1, key: "{{ input.body.customer }}" } },
    );
    const a = await call(path, { customer: "acme", i: 0 });
    const b = await call(path, { customer: "acme", i: 1 });
    expect(b.body.run_id).toBe(a.body.run_id);
    const run = await h.waitForEnd(a.body.run_id as string, 30_000);
    expect(run.status).toBe("success");
    expect(bodyOf(run)).toEqual({ customer: "acme", i: 1 });
    expect(await runsOf(flowId)).toHaveLength(1);
  }, 60_000);

  it("collapses 10 concurrent starts through the run endpoint into one run: every answer names it", async () => {
    const flowId = await h.createFlow({
      ...flow([{ id: "after", type: "debug" }], [["start", "after"]]),
      debounce: { period_ms: 1500 },
    });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => h.startRun(flowId, { i })));
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const ids = new Set(answers.map((answer) => answer.body.run_id as string));
    expect(ids.size).toBe(1);
    const [runId] = [...ids];
    expect((await h.waitForEnd(runId!, 30_000)).status).toBe("success");
    expect(await runsOf(flowId)).toHaveLength(1);
    expect(await testPrisma().debouncedStart.count({ where: { runId } })).toBe(9);
  }, 60_000);

  it("starts the run max_wait_ms after its window opened although starts keep coming", async () => {
    const { flowId, path } = await debouncedHook({ period_ms: 1000, max_wait_ms: 2000 });
    const answers: string[] = [];
    const firstAt = Date.now();
    // A call every 200 ms for 4 s: never a quiet period, so only the longest wait closes windows.
    for (let i = 0; i < 20 && Date.now() - firstAt < 4000; i++) {
      answers.push((await call(path, { i })).body.run_id as string);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const first = answers[0]!;
    // The first window closed while calls came: later calls opened another run.
    expect(new Set(answers).size).toBeGreaterThanOrEqual(2);
    const run = await h.waitForEnd(first, 30_000);
    expect(run.status).toBe("success");
    const joined = answers.filter((id) => id === first).length;
    // It ran with the last call that joined it, and every call it took came in order before the others.
    expect(bodyOf(run)).toEqual({ i: joined - 1 });
    expect(answers.slice(0, joined).every((id) => id === first)).toBe(true);
    const record = await testPrisma().run.findUniqueOrThrow({ where: { id: first } });
    const step = await testPrisma().runStep.findFirstOrThrow({ where: { runId: first, nodeId: "after" } });
    // Its node ran no earlier than max_wait_ms after the window opened (calls kept it open that long).
    expect(step.startedAt!.getTime() - record.startedAt.getTime()).toBeGreaterThanOrEqual(2000);
    for (const id of new Set(answers)) expect((await h.waitForEnd(id, 30_000)).status).toBe("success");
    await expect.poll(() => testPrisma().debounceWindow.count({ where: { flowId } }), { timeout: 10_000 }).toBe(0);
  }, 60_000);

  it("refuses bad settings at save with 400 naming definition.debounce.*", async () => {
    const cases: Array<[object, string]> = [
      [{ period_ms: 50 }, "definition.debounce.period_ms"],
      [{ period_ms: 3_600_001 }, "definition.debounce.period_ms"],
      [{ period_ms: 1000, max_wait_ms: 500 }, "definition.debounce.max_wait_ms"],
      [{ period_ms: 1000, max_wait_ms: 100_001 }, "definition.debounce.max_wait_ms"],
      [{ period_ms: 1000, key: "{{ nodes.x }}" }, "definition.debounce.key"],
      [{ period_ms: 1000, key: "" }, "definition.debounce.key"],
    ];
    for (const [debounce, path] of cases) {
      const res = await request(h.app)
        .post("/api/flows")
        .set("Cookie", h.cookie)
        .send({ name: "bad", definition: { ...flow([], []), debounce } });
      expect(res.status, JSON.stringify(debounce)).toBe(400);
      expect(res.body.code).toBe("invalid_definition");
      expect(res.body.details.map((d: { path: string }) => d.path)).toEqual([path]);
    }
  });
});
