// A workspace whose code loops forever, or whose JSONata recurses forever, does not starve another
// workspace's runs on the same worker, nor hold the worker's event loop: the real worker (in this
// process; its sandbox pools of CODE_SANDBOX_THREADS=2 threads and EXPRESSION_SANDBOX_PROCESSES=2
// processes), Temporal dev server and PostgreSQL, runs started through the API.
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { watchEventLoop } from "../../../test/helpers/event-loop.js";
import { createTestUser, login } from "../../../test/helpers/identity.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const h = useRunHarness();

// manual → set → delay → code → transform → log, as in the issue (a shorter delay).
const ORDINARY = flow(
  [
    { id: "prepare", type: "set", config: { fields: { n: "{{ input.n }}" } } },
    { id: "wait", type: "delay", config: { duration: "3s" } },
    {
      id: "compute",
      type: "code",
      config: { code: "const end = Date.now() + 200; while (Date.now() < end); return { n: input.n * 2 };" },
    },
    { id: "shape", type: "transform", config: { expression: '{ "doubled": n }' } },
    { id: "report", type: "log", config: { message: "doubled {{ input.doubled }}" } },
  ],
  [
    ["start", "prepare"],
    ["prepare", "wait"],
    ["wait", "compute"],
    ["compute", "shape"],
    ["shape", "report"],
  ],
);
const ORDINARY_NODES = ["compute", "prepare", "report", "shape", "start", "wait"];
const LOOP_LIMIT_MS = 10_000;
const looping = (code: string, timeLimitMs: number) =>
  flow(
    [{ id: "spin", type: "code", config: { code, time_limit_ms: timeLimitMs, memory_limit_mb: 128 } }],
    [["start", "spin"]],
  );
// QuickJS's interrupt stops the first; the second defeats it (each join outlasts its check
// interval), so the pool's kill stops it.
const ENDLESS = looping("for (;;) {}", LOOP_LIMIT_MS);
const UNINTERRUPTIBLE = looping("const a = new Array(2e6).fill(12345.678); for (;;) a.join(',');", 2000);
// The transform: an endless tail recursion, which only the time limit stops.
const RECURSING = flow(
  [
    {
      id: "shape",
      type: "transform",
      config: { expression: "($f := function($n){ $f($n+1) }; $f(0))", time_limit_ms: LOOP_LIMIT_MS },
    },
  ],
  [["start", "shape"]],
);

type Run = { id: string; status: string; error: { node_id?: string; message?: string } | null };
type Step = { node_id: string; status: string; attempt: number; error?: { type?: string; retryable?: boolean } };

describe("a workspace whose code loops forever, beside another workspace's ordinary runs", () => {
  let neighbour: { cookie: string };

  beforeAll(async () => {
    const user = await createTestUser("neighbour");
    neighbour = await login(h.app, user.email);
  });

  async function createFlow(cookie: string, definition: object) {
    const res = await request(h.app).post("/api/flows").set("Cookie", cookie).send({ name: "flow", definition });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  }
  async function start(cookie: string, flowId: string, input: object = {}) {
    const res = await request(h.app).post(`/api/workflows/${flowId}/run`).set("Cookie", cookie).send({ input });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.run_id as string;
  }
  async function waitForEnd(cookie: string, runId: string): Promise<Run> {
    for (let i = 0; i < 900; i += 1) {
      const res = await request(h.app).get(`/api/runs/${runId}`).set("Cookie", cookie);
      expect(res.status).toBe(200);
      if (res.body.run.status !== "running") return res.body.run as Run;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`run ${runId} still running after 180 s`);
  }
  async function stepsOf(cookie: string, runId: string): Promise<Step[]> {
    const res = await request(h.app).get(`/api/runs/${runId}/steps`).set("Cookie", cookie);
    expect(res.status).toBe(200);
    return res.body.items as Step[];
  }
  /** The neighbour's run failed at `nodeId` once: one failed attempt, not retryable. */
  async function expectFailedOnce(runId: string, nodeId: string) {
    const steps = await stepsOf(neighbour.cookie, runId);
    expect(steps.filter((s) => s.node_id === nodeId)).toEqual([
      expect.objectContaining({
        status: "failed",
        attempt: 1,
        error: expect.objectContaining({ type: "NodeFatalError", retryable: false }),
      }),
    ]);
  }

  /**
   * Every activity of the run's history: the attempt that ended it, and any timeout; and workflow
   * tasks that timed out or failed (a local activity is re-run with its workflow task: a worker
   * whose event loop a local node held misses its task's deadline, and another runs it again).
   */
  async function activitiesOf(runId: string) {
    const { events } = await h.deps.temporal.workflow.getHandle(runId).fetchHistory();
    return {
      attempts: events!.flatMap((e) =>
        e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt] : [],
      ),
      timeouts: events!.filter((e) => e.activityTaskTimedOutEventAttributes).length,
      lostTasks: events!.filter((e) => e.workflowTaskTimedOutEventAttributes || e.workflowTaskFailedEventAttributes)
        .length,
    };
  }

  it("runs every ordinary run to success, each node once, fails each loop and recursion once at its time limit, and keeps the worker's event loop free", async () => {
    const [ordinary, endless, uninterruptible, recursing] = await Promise.all([
      createFlow(h.cookie, ORDINARY),
      createFlow(neighbour.cookie, ENDLESS),
      createFlow(neighbour.cookie, UNINTERRUPTIBLE),
      createFlow(neighbour.cookie, RECURSING),
    ]);

    const eventLoop = watchEventLoop();
    // The neighbour's loops first, so that they hold the sandbox while the ordinary runs need it.
    const loops = [
      ...(await Promise.all([1, 2, 3].map(() => start(neighbour.cookie, endless)))),
      await start(neighbour.cookie, uninterruptible),
    ];
    const recursions = await Promise.all([1, 2, 3].map(() => start(neighbour.cookie, recursing)));
    const runs = await Promise.all(Array.from({ length: 6 }, (_, n) => start(h.cookie, ordinary, { n })));

    const ended = await Promise.all(runs.map((id) => waitForEnd(h.cookie, id)));
    for (const [n, run] of ended.entries()) {
      expect(run.status, JSON.stringify(run.error)).toBe("success");
      const steps = await stepsOf(h.cookie, run.id);
      expect(steps.map((s) => s.node_id).sort()).toEqual(ORDINARY_NODES);
      expect(
        steps.filter((s) => s.status !== "success" || s.attempt !== 1),
        `run ${n}`,
      ).toEqual([]);
    }

    const failed = await Promise.all(loops.map((id) => waitForEnd(neighbour.cookie, id)));
    expect(failed.map((run) => [run.status, run.error?.node_id, run.error?.message])).toEqual([
      ...[1, 2, 3].map(() => ["failed", "spin", `The code exceeded its time limit of ${LOOP_LIMIT_MS} ms`]),
      ["failed", "spin", "The code exceeded its time limit of 2000 ms"],
    ]);
    for (const run of failed) await expectFailedOnce(run.id, "spin");

    const recursed = await Promise.all(recursions.map((id) => waitForEnd(neighbour.cookie, id)));
    // On the event loop, each recursion held the worker for its 10 s, three times in a row.
    expect(eventLoop()).toBeLessThan(1000);
    expect(recursed.map((run) => [run.status, run.error?.node_id, run.error?.message])).toEqual(
      [1, 2, 3].map(() => ["failed", "shape", `The expression exceeded its time limit of ${LOOP_LIMIT_MS} ms`]),
    );
    for (const run of recursed) await expectFailedOnce(run.id, "shape");

    // Temporal's own record: no activity timed out (heartbeat or otherwise), none ran twice, and no
    // workflow task was lost (which would have run a local node again).
    for (const id of [...runs, ...loops, ...recursions]) {
      const { attempts, timeouts, lostTasks } = await activitiesOf(id);
      expect({ id, timeouts, lostTasks, attempts: attempts.filter((a) => a !== 1) }).toEqual({
        id,
        timeouts: 0,
        lostTasks: 0,
        attempts: [],
      });
    }
  }, 240_000);
});
