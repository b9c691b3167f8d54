// Run trees against the real server: a flow that would start itself is refused at save; a cycle
// saved before that check (written here straight into the database) stops at the depth limit with
// one error that does not nest; a tree stops at its run count; a loop stops at its first failed
// item; cancelling a root cancels every run below it and ends them all cancelled, starting no
// error flow; a growing tree cancelled at its root starts nothing after the cancel; cancelling a
// middle run ends its parents cancelled; a child whose start is queued behind a backlog is not
// found "never started", and is cancelled once it starts when it was cancelled meanwhile; and an
// error flow that starts the flow it guards runs once, not forever.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { WorkflowNotFoundError } from "@temporalio/client";
import pg from "pg";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { testConfig, testPrisma, testSeal } from "../../test/helpers/context.js";
import { exportedHistory } from "../../test/helpers/histories.js";
import { createTestUser, login } from "../../test/helpers/identity.js";
import { drainOutbox, flow, useRunHarness, type RunHarness } from "../../test/helpers/runs.js";
import { systemClock } from "../../lib/clock.js";
import { reconcileClosedRuns, reconcileRuns, reconcileUnstartedRuns } from "../../worker/reconcile-runs.js";
import { createBlobStore } from "./records/blobs.js";

/** A flow's definition replaced in place, as a flow saved before cycles were refused would be. */
async function writeDefinition(flowId: string, definition: object) {
  await testPrisma().flow.update({ where: { id: flowId }, data: { definition } });
}

async function putDefinition(h: RunHarness, flowId: string, definition: object) {
  const current = await request(h.app).get(`/api/flows/${flowId}`).set("Cookie", h.cookie);
  return request(h.app)
    .put(`/api/flows/${flowId}`)
    .set("Cookie", h.cookie)
    .send({ definition, version: current.body.version });
}

async function setLimits(h: RunHarness, limits: object) {
  const res = await request(h.app).put("/api/workspace/settings").set("Cookie", h.cookie).send(limits);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const calls = (flowId: string, id = "call") => ({ id, type: "flow.call", config: { flow_id: flowId } });

/** Writes a run's history as a replay fixture of worker/workflows/histories/ (workflows.replay.test.ts). */
async function recordHistory(h: RunHarness, runId: string, name: string) {
  const fixture = new URL(`../../worker/workflows/histories/${name}`, import.meta.url);
  // Stack traces name the checkout: written as /app, as in the other fixtures.
  const checkout = fileURLToPath(new URL("../../", import.meta.url));
  const json = JSON.stringify(JSON.parse(await exportedHistory(h.deps.temporal, runId)), null, 2);
  writeFileSync(fixture, `${json.replaceAll(checkout, "/app/")}\n`);
}

describe("run trees", () => {
  describe("saved", () => {
    const h = useRunHarness();

    it("refuses a flow that starts itself, directly, through another flow, or through its error flow", async () => {
      const self = await h.createFlow(flow([], []), "Self");
      const direct = await putDefinition(h, self, flow([calls(self)], [["start", "call"]]));
      expect(direct.status).toBe(400);
      expect(direct.body).toMatchObject({ code: "invalid_definition" });
      expect(direct.body.details).toEqual([
        {
          path: "definition.nodes[1].config.flow_id",
          message: expect.stringMatching(/^flow\.call node "call" starts this flow again \(Self → Self\)/),
        },
      ]);

      const a = await h.createFlow(flow([], []), "A");
      const b = await h.createFlow(flow([calls(a)], [["start", "call"]]), "B");
      const closing = await putDefinition(
        h,
        a,
        flow([{ id: "each", type: "loop", config: { flow_id: b, items: [1] } }], [["start", "each"]]),
      );
      expect(closing.status).toBe(400);
      expect(closing.body.details[0].message).toMatch(/^loop node "each" starts this flow again \(A → B → A\)/);

      const guarded = await h.createFlow(flow([], []), "Guarded");
      const handler = await h.createFlow(flow([calls(guarded)], [["start", "call"]]), "Handler");
      const viaErrorFlow = await putDefinition(h, guarded, { ...flow([], []), error_flow_id: handler });
      expect(viaErrorFlow.status).toBe(400);
      expect(viaErrorFlow.body.details).toEqual([
        { path: "definition.error_flow_id", message: expect.stringMatching(/\(Guarded → Handler → Guarded\)/) },
      ]);

      // Calling another flow that does not call back is fine, and so is a flow nobody calls.
      const fine = await putDefinition(h, a, flow([calls(guarded)], [["start", "call"]]));
      expect(fine.status, JSON.stringify(fine.body)).toBe(200);
    });

    it("takes run tree limits in the workspace's settings, at most the server's", async () => {
      expect(await setLimits(h, { run_tree_max_depth: 3 })).toMatchObject({
        run_tree_max_depth: 3,
        run_tree_max_runs: null,
        run_tree_limits: { max_depth: 3, max_runs: 5000 },
      });
      const above = await request(h.app)
        .put("/api/workspace/settings")
        .set("Cookie", h.cookie)
        .send({ run_tree_max_runs: 5001 });
      expect(above.status).toBe(400);
      expect(above.body).toMatchObject({ code: "invalid_settings", error: expect.stringMatching(/RUN_TREE_MAX_RUNS/) });
      expect(await setLimits(h, { run_tree_max_depth: null })).toMatchObject({
        run_tree_limits: { max_depth: 16, max_runs: 5000 },
      });
    });
  });

  describe("running", () => {
    const h = useRunHarness();

    it("stops a cycle saved before the check at the depth limit, with one error that does not nest", async () => {
      await setLimits(h, { run_tree_max_depth: 5, run_tree_max_runs: null });
      const self = await h.createFlow(flow([], []), "Recursive");
      await writeDefinition(self, flow([calls(self)], [["start", "call"]]));
      const root = await h.runToEnd(self);
      expect(root.status).toBe("failed");
      const runs = await testPrisma().run.findMany({ where: { OR: [{ id: root.id }, { rootRunId: root.id }] } });
      // The root and five levels below it; the fifth level's start of a sixth was refused.
      expect(runs).toHaveLength(6);
      expect(runs.map((run) => run.depth).sort()).toEqual([0, 1, 2, 3, 4, 5]);
      expect(runs.every((run) => run.status === "failed")).toBe(true);
      const error = root.error as { message: string; origin: { run_id: string; node_id: string } };
      expect(error.message).toMatch(
        /^flow Recursive \(run run_\w+\) failed: The run tree of run \w+ is at its depth limit of 5/,
      );
      expect(error.message.match(/depth limit/g)).toHaveLength(1);
      expect(error.origin).toMatchObject({ node_id: "call", run_id: runs.find((run) => run.depth === 5)!.id });
      // Every level's error is about as long as the deepest one's: nothing nests.
      const sizes = runs.map((run) => JSON.stringify(run.error).length);
      expect(Math.max(...sizes)).toBeLessThan(2 * Math.min(...sizes) + 200);
    });

    it("refuses a start that would pass the tree's run count", async () => {
      await setLimits(h, { run_tree_max_depth: null, run_tree_max_runs: 3 });
      const item = await h.createFlow(flow([], []), "Item");
      const many = await h.createFlow(
        flow([{ id: "each", type: "loop", config: { flow_id: item, items: [1, 2, 3, 4] } }], [["start", "each"]]),
        "Many",
      );
      const root = await h.runToEnd(many);
      expect(root).toMatchObject({ status: "failed", error: { node_id: "each", type: "NodeFatalError" } });
      expect((root.error as { message: string }).message).toMatch(/holds 0 runs; 4 more would pass its limit of 3/);
      expect(await testPrisma().run.count({ where: { rootRunId: root.id } })).toBe(0);
      await setLimits(h, { run_tree_max_runs: null });
    });

    // The replay fixture of a loop that stopped at its failed item (workflows.replay.test.ts).
    // Set RECORD_HISTORY=1 to record it again, after a change that earlier histories must not see.
    it("stops a loop at its first failed item: the others cancelled or never run", async () => {
      const item = await h.createFlow(
        flow(
          [
            { id: "check", type: "condition", config: { left: "{{ input.fail }}", operator: "equals", right: true } },
            { id: "boom", type: "test_fail", config: { failures: 9, fatal: true } },
            { id: "wait", type: "delay", config: { duration: "20s" } },
          ],
          [
            ["start", "check"],
            ["check", "boom", "true"],
            ["check", "wait", "false"],
          ],
        ),
        "Item",
      );
      const items = [{ fail: false }, { fail: true }, { fail: false }, { fail: false }];
      const loop = await h.createFlow(
        flow([{ id: "each", type: "loop", config: { flow_id: item, items, concurrency: 2 } }], [["start", "each"]]),
        "Loop",
      );
      const root = await h.runToEnd(loop);
      expect(root.status).toBe("failed");
      expect((root.error as { message: string }).message).toMatch(
        /^item 1 \(run run_\w+\) failed: planned failure 1 of 9 \(in run run_\w+, node boom\)$|^item 1 \(run run_\w+\) failed: planned failure 1 of 9$/,
      );
      const children = await testPrisma().run.findMany({ where: { parentRunId: root.id }, orderBy: { id: "asc" } });
      const byInput = (fail: boolean) =>
        children.filter((c) => (testSeal.open(c.input) as { fail?: boolean }).fail === fail);
      expect(children).toHaveLength(4);
      expect(byInput(true).map((c) => c.status)).toEqual(["failed"]);
      // Item 0 was waiting on its delay: cancelled; items 2 and 3 never started.
      expect(byInput(false).map((c) => c.status)).toEqual(["cancelled", "cancelled", "cancelled"]);
      const notRun = children.filter((c) =>
        /^Not run/.test((testSeal.open(c.error) as { message?: string } | null)?.message ?? ""),
      );
      expect(notRun).toHaveLength(2);
      expect(await testPrisma().runStep.count({ where: { runId: { in: notRun.map((c) => c.id) } } })).toBe(0);
      if (process.env.RECORD_HISTORY === "1") await recordHistory(h, root.id, "run-trees.runFlow.loop-stops.json");
    });

    it("cancels every run below a cancelled root within seconds; all end cancelled, no error flow starts", async () => {
      const errorFlow = await h.createFlow(flow([], []), "On failure");
      await setLimits(h, { error_flow_id: errorFlow, run_tree_max_depth: 6 });
      const fanOut = await h.createFlow(flow([], []), "Fan out");
      await writeDefinition(
        fanOut,
        flow(
          [{ id: "wait", type: "delay", config: { duration: "300ms" } }, calls(fanOut, "left"), calls(fanOut, "right")],
          [
            ["start", "wait"],
            ["wait", "left"],
            ["wait", "right"],
          ],
        ),
      );
      const started = await h.startRun(fanOut);
      const rootId = started.body.run_id as string;
      await until(
        "the tree to grow",
        () => testPrisma().run.count({ where: { rootRunId: rootId } }),
        (count) => count >= 6,
      );
      const cancel = await request(h.app).post(`/api/runs/${rootId}/cancel`).set("Cookie", h.cookie);
      expect(cancel.status).toBe(202);
      const cancelledAt = Date.now();
      await until(
        "every run of the tree to end",
        () => testPrisma().run.count({ where: { OR: [{ id: rootId }, { rootRunId: rootId }], status: "running" } }),
        (running) => running === 0,
        5000,
      ).catch(async (error: unknown) => {
        const left = await testPrisma().run.findMany({
          where: { rootRunId: rootId, status: "running" },
          select: { id: true, parentRunId: true, depth: true, trigger: true },
        });
        const states = await Promise.all(
          left.map(async (run) => {
            const described = await h.deps.temporal.workflow
              .getHandle(run.id)
              .describe()
              .catch((e: Error) => e.name);
            return { ...run, temporal: typeof described === "string" ? described : described.status.name };
          }),
        );
        throw new Error(`${(error as Error).message}: ${JSON.stringify(states)}`);
      });
      expect(Date.now() - cancelledAt).toBeLessThan(5000);
      const tree = await testPrisma().run.findMany({ where: { OR: [{ id: rootId }, { rootRunId: rootId }] } });
      expect(new Set(tree.map((run) => run.status))).toEqual(new Set(["cancelled"]));
      // Nothing more starts afterwards, and no error flow ran for any of them.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await drainOutbox(h);
      expect(await testPrisma().run.count({ where: { OR: [{ id: rootId }, { rootRunId: rootId }] } })).toBe(
        tree.length,
      );
      // (Earlier tests' failures in this workspace start theirs: none is in this tree.)
      expect(await testPrisma().run.count({ where: { rootRunId: rootId, trigger: "error_flow" } })).toBe(0);
      await setLimits(h, { error_flow_id: null, run_tree_max_depth: null });
    });

    it("ends the parents of a cancelled middle run cancelled, up to the root, and starts no error flow", async () => {
      const errorFlow = await h.createFlow(flow([], []), "On failure");
      await setLimits(h, { error_flow_id: errorFlow });
      const leaf = await h.createFlow(
        flow([{ id: "wait", type: "delay", config: { duration: "1h" } }], [["start", "wait"]]),
        "Leaf",
      );
      const middle = await h.createFlow(flow([calls(leaf)], [["start", "call"]]), "Middle");
      const top = await h.createFlow(flow([calls(middle)], [["start", "call"]]), "Top");
      const rootId = (await h.startRun(top)).body.run_id as string;
      const leafRun = await until(
        "the leaf to wait",
        () => testPrisma().run.findFirst({ where: { rootRunId: rootId, depth: 2 }, include: { steps: true } }),
        (run) => run?.steps.some((step) => step.nodeId === "wait" && step.status === "running") ?? false,
      );
      const middleId = leafRun!.parentRunId!;

      const cancel = await request(h.app).post(`/api/runs/${middleId}/cancel`).set("Cookie", h.cookie);
      expect(cancel.status).toBe(202);
      // docs/runs.md: the run and its parents waiting on the cancelled children end cancelled.
      expect(await h.waitForEnd(rootId)).toMatchObject({
        status: "cancelled",
        error: { message: "The run was cancelled" },
      });
      const runs = await testPrisma().run.findMany({ where: { OR: [{ id: rootId }, { rootRunId: rootId }] } });
      expect(runs.map((run) => [run.depth, run.status]).sort()).toEqual([
        [0, "cancelled"],
        [1, "cancelled"],
        [2, "cancelled"],
      ]);
      const stepsOf = async (runId: string) =>
        (await h.steps(runId))
          .map((step) => [step.node_id, step.status, (step.error as { message?: string } | null)?.message ?? null])
          .sort();
      const interrupted = "the run was cancelled while this step ran";
      expect(await stepsOf(rootId)).toEqual([
        ["call", "failed", interrupted],
        ["start", "success", null],
      ]);
      expect(await stepsOf(middleId)).toEqual([
        ["call", "failed", interrupted],
        ["start", "success", null],
      ]);
      expect(await stepsOf(leafRun!.id)).toEqual([
        ["start", "success", null],
        ["wait", "failed", interrupted],
      ]);
      // Temporal: the cancelled run and the one below it were cancelled; the root, which nothing
      // asked to cancel, fails its workflow with the cancellation as its failure.
      const temporalStatus = async (id: string) =>
        (await h.deps.temporal.workflow.getHandle(id).describe()).status.name;
      await expect.poll(() => temporalStatus(leafRun!.id)).toBe("CANCELLED");
      await expect.poll(() => temporalStatus(middleId)).toBe("CANCELLED");
      await expect.poll(() => temporalStatus(rootId)).toBe("FAILED");
      await drainOutbox(h);
      expect(await testPrisma().run.count({ where: { rootRunId: rootId, trigger: "error_flow" } })).toBe(0);
      await setLimits(h, { error_flow_id: null });
      // The replay fixture of a run ended cancelled by its cancelled child (CANCELLED_CHILD_CANCELS_RUN).
      if (process.env.RECORD_HISTORY === "1") await recordHistory(h, rootId, "run-trees.runFlow.child-cancelled.json");
    });

    it("leaves a child whose workflow its parent has not started yet running: not 'never started'", async () => {
      const child = await h.createFlow(
        flow([{ id: "answer", type: "set", config: { fields: { ok: true } } }], [["start", "answer"]]),
        "Child",
      );
      const parent = await h.createFlow(
        flow(
          [{ id: "wait", type: "delay", config: { duration: "1s" } }, calls(child)],
          [
            ["start", "wait"],
            ["wait", "call"],
          ],
        ),
        "Parent",
      );
      const rootId = (await h.startRun(parent)).body.run_id as string;
      // The parent's flow.call waits for its tree's lock, held here: the child is recorded only
      // once the worker has begun to stop, so its workflow starts only with the next worker, as a
      // start queued behind a backlog of workflow tasks would.
      const db = new pg.Client({ connectionString: testConfig().DATABASE_URL });
      await db.connect();
      try {
        await db.query("SELECT pg_advisory_lock(hashtext($1))", [rootId]);
        await until(
          "the flow.call step to start",
          () => testPrisma().runStep.count({ where: { runId: rootId, nodeId: "call" } }),
          (count) => count > 0,
        );
        let childId = "";
        await h.restartWorker(async (stopped) => {
          await db.query("SELECT pg_advisory_unlock(hashtext($1))", [rootId]);
          await stopped;
          const recorded = await until(
            "the child to be recorded",
            () => testPrisma().run.findFirst({ where: { parentRunId: rootId } }),
            (run) => run !== null,
          );
          childId = recorded!.id;
          await expect(h.deps.temporal.workflow.getHandle(childId).describe()).rejects.toThrow(WorkflowNotFoundError);
          const deps = {
            taskQueue: h.taskQueue,
            prisma: testPrisma(),
            clock: systemClock,
            temporal: h.deps.temporal,
            blobs: createBlobStore({ prisma: testPrisma(), offloadBytes: 262_144, seal: testSeal }),
          };
          // Both passes, as if the child had waited longer than their thresholds.
          await reconcileUnstartedRuns(deps, { workspaceId: h.workspaceId, minAgeMs: 0 });
          await reconcileRuns(deps, { workspaceId: h.workspaceId, minAgeMs: 0 });
          await reconcileClosedRuns(deps, { workspaceId: h.workspaceId, minAgeMs: 0 });
          expect((await testPrisma().run.findUniqueOrThrow({ where: { id: childId } })).status).toBe("running");
        });
        // The next worker takes the parent's task: it starts the child, which runs to its end.
        expect(await h.waitForEnd(rootId)).toMatchObject({ status: "success", output: { ok: true } });
        expect(await h.waitForEnd(childId)).toMatchObject({ status: "success", output: { ok: true } });
        expect((await h.steps(childId)).map((step) => [step.node_id, step.status]).sort()).toEqual([
          ["answer", "success"],
          ["start", "success"],
        ]);
      } finally {
        await db.end();
      }
    });

    it("cancels a child whose workflow its parent has not started yet once it starts, and its parent with it", async () => {
      const child = await h.createFlow(
        flow([{ id: "wait", type: "delay", config: { duration: "1h" } }], [["start", "wait"]]),
        "Slow child",
      );
      const parent = await h.createFlow(
        flow(
          [{ id: "wait", type: "delay", config: { duration: "1s" } }, calls(child)],
          [
            ["start", "wait"],
            ["wait", "call"],
          ],
        ),
        "Parent",
      );
      const rootId = (await h.startRun(parent)).body.run_id as string;
      const deps = {
        taskQueue: h.taskQueue,
        prisma: testPrisma(),
        clock: systemClock,
        temporal: h.deps.temporal,
        blobs: createBlobStore({ prisma: testPrisma(), offloadBytes: 262_144, seal: testSeal }),
      };
      // As above: the child is recorded as the worker stops, and started by the next one.
      const db = new pg.Client({ connectionString: testConfig().DATABASE_URL });
      await db.connect();
      let childId = "";
      try {
        await db.query("SELECT pg_advisory_lock(hashtext($1))", [rootId]);
        await until(
          "the flow.call step to start",
          () => testPrisma().runStep.count({ where: { runId: rootId, nodeId: "call" } }),
          (count) => count > 0,
        );
        await h.restartWorker(async (stopped) => {
          await db.query("SELECT pg_advisory_unlock(hashtext($1))", [rootId]);
          await stopped;
          const recorded = await until(
            "the child to be recorded",
            () => testPrisma().run.findFirst({ where: { parentRunId: rootId } }),
            (run) => run !== null,
          );
          childId = recorded!.id;
          // Cancelled before its workflow exists: its tree is closed, and it waits for its workflow.
          const cancel = await request(h.app).post(`/api/runs/${childId}/cancel`).set("Cookie", h.cookie);
          expect(cancel.status).toBe(202);
          await reconcileClosedRuns(deps, { workspaceId: h.workspaceId, minAgeMs: 0 });
          const waiting = await testPrisma().run.findUniqueOrThrow({ where: { id: childId } });
          expect(waiting).toMatchObject({ status: "running", treeClosedAt: expect.any(Date) });
        });
      } finally {
        await db.end();
      }
      // The next worker starts it; the reconciler's pass over closed trees cancels it, and its
      // parent, which waited on it, ends cancelled too.
      await until(
        "the child's workflow to start",
        () =>
          h.deps.temporal.workflow
            .getHandle(childId)
            .describe()
            .then(
              () => true,
              () => false,
            ),
        (started) => started,
        30_000,
      );
      await until(
        "the reconciler to cancel it",
        () => reconcileClosedRuns(deps, { workspaceId: h.workspaceId, minAgeMs: 0 }),
        (cancelled) => cancelled > 0,
      );
      expect(await h.waitForEnd(childId)).toMatchObject({
        status: "cancelled",
        error: { message: "The run was cancelled" },
      });
      expect(await h.waitForEnd(rootId)).toMatchObject({ status: "cancelled" });
    });

    it("bounds a neighbour's recursive fan-out by its tree's run limit while another workspace's runs finish whole", async () => {
      const neighbour = await createTestUser("recursing-neighbour");
      const { cookie } = await login(h.app, neighbour.email);
      const settings = await request(h.app)
        .put("/api/workspace/settings")
        .set("Cookie", cookie)
        .send({ run_tree_max_runs: 40 });
      expect(settings.status).toBe(200);
      const created = await request(h.app)
        .post("/api/flows")
        .set("Cookie", cookie)
        .send({ name: "Fork bomb", definition: flow([], []) });
      const bomb = created.body.id as string;
      await writeDefinition(
        bomb,
        flow(
          [calls(bomb, "left"), calls(bomb, "right")],
          [
            ["start", "left"],
            ["start", "right"],
          ],
        ),
      );
      const ordinary = await h.createFlow(
        flow(
          [
            { id: "prepare", type: "set", config: { fields: { n: "{{ input.n }}" } } },
            { id: "wait", type: "delay", config: { duration: "1s" } },
            { id: "report", type: "test_echo", config: { value: "{{ input.n }}" } },
          ],
          [
            ["start", "prepare"],
            ["prepare", "wait"],
            ["wait", "report"],
          ],
        ),
        "Ordinary",
      );
      const bombRun = await request(h.app).post(`/api/workflows/${bomb}/run`).set("Cookie", cookie).send({ input: {} });
      expect(bombRun.status).toBe(201);
      const rootId = bombRun.body.run_id as string;
      const started = await Promise.all(Array.from({ length: 6 }, (_, n) => h.startRun(ordinary, { n })));
      const ended = await Promise.all(started.map((res) => h.waitForEnd(res.body.run_id as string, 60_000)));
      for (const run of ended) {
        expect(run.status, JSON.stringify(run.error)).toBe("success");
        const steps = await h.steps(run.id);
        expect(steps.map((step) => [step.node_id, step.status, step.attempt]).sort()).toEqual([
          ["prepare", "success", 1],
          ["report", "success", 1],
          ["start", "success", 1],
          ["wait", "success", 1],
        ]);
      }
      // The tree ends within its limit: every run recorded ended, none doubled, none left running.
      const tree = await until(
        "the fork bomb's tree to end",
        () => testPrisma().run.findMany({ where: { OR: [{ id: rootId }, { rootRunId: rootId }] } }),
        (runs) => runs.every((run) => run.status !== "running"),
        60_000,
      );
      expect(tree.length - 1).toBeLessThanOrEqual(40);
      expect(tree.find((run) => run.id === rootId)?.status).toBe("failed");
      const limited = tree.filter((run) =>
        /pass its limit of 40/.test((testSeal.open(run.error) as { message?: string } | null)?.message ?? ""),
      );
      expect(limited.length).toBeGreaterThan(0);
      const doubled = await testPrisma().runStep.groupBy({
        by: ["runId", "nodeId"],
        where: { runId: { in: tree.map((run) => run.id) }, status: "success" },
        _count: true,
        having: { nodeId: { _count: { gt: 1 } } },
      });
      expect(doubled).toEqual([]);
    }, 120_000);

    it("runs an error flow that starts the flow it guards once, not in a loop", async () => {
      const guarded = await h.createFlow(
        flow([{ id: "boom", type: "test_fail", config: { failures: 9, fatal: true } }], [["start", "boom"]]),
        "Guarded",
      );
      // The workspace's error flow: a setting, which no save can check against the flows it guards.
      const handler = await h.createFlow(flow([calls(guarded)], [["start", "call"]]), "Handler");
      await setLimits(h, { error_flow_id: handler });
      const root = await h.runToEnd(guarded);
      expect(root.status).toBe("failed");
      const handled = await until(
        "the error flow's run to end",
        async () => {
          await drainOutbox(h);
          return testPrisma().run.findMany({ where: { rootRunId: root.id }, orderBy: { depth: "asc" } });
        },
        (runs) => runs.length >= 2 && runs.every((run) => run.status !== "running"),
      );
      // Their failures are dispatched too, and start nothing more.
      await drainOutbox(h);
      const runs = await testPrisma().run.findMany({ where: { rootRunId: root.id }, orderBy: { depth: "asc" } });
      expect(runs.map((run) => [run.trigger, run.depth, run.status, run.inErrorFlow])).toEqual([
        ["error_flow", 1, "failed", true],
        ["flow.call", 2, "failed", true],
      ]);
      expect(runs).toHaveLength(handled.length);
      await setLimits(h, { error_flow_id: null });
    });
  });
  describe("a growing tree cancelled at its root", () => {
    const h = useRunHarness();
    /**
     * The tree's size when its root is cancelled: its workflows take about 0.3 s each to wind down
     * on a loaded 2-core machine, so the test stays within a minute; npm run bench:tree-cancel
     * cancels one of 600.
     */
    const TREE_RUNS = 150;

    it(`closes the tree first: nothing starts after the cancel, every run ends cancelled, every step log whole`, async () => {
      const errorFlow = await h.createFlow(flow([], []), "On failure");
      await setLimits(h, { error_flow_id: errorFlow, run_tree_max_runs: 5000 });
      const grow = await h.createFlow(flow([], []), "Grow");
      await writeDefinition(
        grow,
        flow(
          [{ id: "wait", type: "delay", config: { duration: "200ms" } }, calls(grow, "left"), calls(grow, "right")],
          [
            ["start", "wait"],
            ["wait", "left"],
            ["wait", "right"],
          ],
        ),
      );
      const rootId = (await h.startRun(grow)).body.run_id as string;
      const inTree = { OR: [{ id: rootId }, { rootRunId: rootId }] };
      await until(
        `the tree to grow to ${TREE_RUNS} runs`,
        () => testPrisma().run.count({ where: inTree }),
        (count) => count >= TREE_RUNS,
        60_000,
      );

      const cancel = await request(h.app).post(`/api/runs/${rootId}/cancel`).set("Cookie", h.cookie);
      expect(cancel.status).toBe(202);
      const answeredAt = new Date();
      // Closed before anything was cancelled, and ended at once: no run of the tree is left running.
      const tree = await testPrisma().run.findMany({ where: inTree });
      const closedAt = tree.find((run) => run.id === rootId)!.treeClosedAt!;
      expect(closedAt).toBeInstanceOf(Date);
      expect(closedAt.getTime()).toBeLessThanOrEqual(answeredAt.getTime());
      expect(tree.filter((run) => run.treeClosedAt === null)).toEqual([]);
      expect(tree.filter((run) => run.status !== "cancelled").map((run) => [run.id, run.status])).toEqual([]);

      // The workflows wind down behind the records; none starts a run meanwhile.
      const closing = tree.map((run) => run.id);
      await until(
        "every workflow of the tree to close",
        async () => {
          const running = await Promise.all(
            closing.map((id) =>
              h.deps.temporal.workflow
                .getHandle(id)
                .describe()
                .then(
                  (described) => described.status.name === "RUNNING",
                  () => false,
                ),
            ),
          );
          return running.filter(Boolean).length;
        },
        (left) => left === 0,
        90_000,
      );
      await drainOutbox(h);
      const ended = await testPrisma().run.findMany({ where: inTree, include: { steps: true } });
      expect(ended.filter((run) => run.startedAt > closedAt).map((run) => run.id)).toEqual([]);
      expect(ended.length).toBe(tree.length);
      expect(new Set(ended.map((run) => run.status))).toEqual(new Set(["cancelled"]));
      expect(
        ended.filter((run) => /never started/.test(JSON.stringify(testSeal.open(run.error)))).map((run) => run.id),
      ).toEqual([]);
      expect(ended.filter((run) => run.trigger === "error_flow")).toEqual([]);
      // Every step log is whole: no step left running; a run whose workflow ran has one row per
      // node (a success, a failure the cancel interrupted or refused, or a node never reached
      // and skipped); one whose workflow never started (its parent's start of it was cancelled
      // first) has none.
      const nodes = ["left", "right", "start", "wait"];
      for (const run of ended) {
        expect(run.steps.filter((step) => step.status === "running")).toEqual([]);
        const byNode = new Map<string, string[]>();
        for (const step of run.steps) byNode.set(step.nodeId, [...(byNode.get(step.nodeId) ?? []), step.status]);
        if (run.steps.length === 0) continue;
        expect([...byNode.keys()].sort(), run.id).toEqual(nodes);
        expect(byNode.get("start"), run.id).toEqual(["success"]);
        for (const statuses of byNode.values()) expect(statuses.length, run.id).toBe(1);
      }
      expect(ended.filter((run) => run.steps.length > 0).length).toBeGreaterThan(TREE_RUNS / 2);
      // Some runs found the tree closed when they went to start their children: cancelled, not failed.
      const refused = ended.filter((run) =>
        run.steps.some((step) => (testSeal.open(step.error) as { type?: string } | null)?.type === "RunTreeClosed"),
      );
      expect(refused.length).toBeGreaterThan(0);
      // The replay fixture of such a run (RUN_TREE_CLOSED_ERROR).
      if (process.env.RECORD_HISTORY === "1") {
        await recordHistory(h, refused[0]!.id, "run-trees.runFlow.tree-closed.json");
      }
      await setLimits(h, { error_flow_id: null, run_tree_max_runs: null });
    }, 240_000);
  });
});
