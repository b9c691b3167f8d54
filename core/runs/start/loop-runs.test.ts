import { describe, expect, it } from "vitest";
import { systemClock } from "../../../lib/clock.js";
import { newId } from "../../../lib/ids.js";
import { testPrisma, testSeal } from "../../../test/helpers/context.js";
import { createTestUser } from "../../../test/helpers/identity.js";
import { testRegistry } from "../../../test/helpers/runs.js";
import { NodeConfigError, NodeError } from "../../nodes/node-error.js";
import { loopConfig } from "../../nodes/loop/loop.node.js";
import { childRunId, startLoop } from "./loop-runs.js";

const perItemFlow = { nodes: [{ id: "start", type: "manual" }], edges: [] };

async function setUp(status: "active" | "inactive" = "active") {
  const prisma = testPrisma();
  const user = await createTestUser("loop-start");
  const workspaceId = user.workspace.workspaceId;
  const flowId = newId("wf");
  const now = new Date();
  await prisma.flow.create({
    data: {
      id: flowId,
      workspaceId,
      name: "Per item",
      status,
      definition: perItemFlow,
      createdAt: now,
      updatedAt: now,
    },
  });
  const limits = { RUN_TREE_MAX_DEPTH: 16, RUN_TREE_MAX_RUNS: 5000 };
  const deps = { prisma, clock: systemClock, seal: testSeal, nodes: testRegistry(), limits };
  const step = { runId: newId("run"), nodeId: "each", workspaceId };
  const config = (items: unknown, extra: object = {}) => loopConfig.parse({ items, flow_id: flowId, ...extra });
  return { prisma, deps, step, config, flowId, workspaceId };
}

describe("startLoop", () => {
  it("records one child run per item with its run.started event, once for repeated attempts", async () => {
    const { prisma, deps, step, config, flowId, workspaceId } = await setUp();
    const first = await startLoop(deps, step, config(["a", { b: 2 }], { concurrency: 3 }));
    expect(first.recorded).toBe(2);
    expect(first.start).toMatchObject({
      concurrency: 3,
      flow: { id: flowId, name: "Per item", version: 1, definition: perItemFlow },
      children: [
        { runId: childRunId(step.runId, "each", 0), item: "a" },
        { runId: childRunId(step.runId, "each", 1), item: { b: 2 } },
      ],
    });
    const again = await startLoop(deps, step, config(["a", { b: 2 }], { concurrency: 3 }));
    expect(again.recorded).toBe(0);
    expect(again.start.children.map((c) => c.runId)).toEqual(first.start.children.map((c) => c.runId));

    const runs = await prisma.run.findMany({ where: { parentRunId: step.runId }, orderBy: { id: "asc" } });
    expect(runs.map((r) => [r.trigger, r.status, r.flowId, r.workspaceId])).toEqual([
      ["loop", "running", flowId, workspaceId],
      ["loop", "running", flowId, workspaceId],
    ]);
    const started = await prisma.event.count({
      where: { type: "run.started", payload: { path: ["data", "run_id"], equals: first.start.children[0]!.runId } },
    });
    expect(started).toBe(1);
  });

  it("with batch_size, records one child run per batch of items, its input the batch and its place", async () => {
    const { deps, step, config } = await setUp();
    const items = Array.from({ length: 7 }, (_, n) => ({ n }));
    const { start, recorded } = await startLoop(deps, step, config(items, { batch_size: 3 }));
    expect(recorded).toBe(3);
    expect(start.children.map((child) => [child.runId, child.item])).toEqual([
      [childRunId(step.runId, "each", 0), { items: items.slice(0, 3), batch: 0, first_index: 0 }],
      [childRunId(step.runId, "each", 1), { items: items.slice(3, 6), batch: 1, first_index: 3 }],
      [childRunId(step.runId, "each", 2), { items: items.slice(6), batch: 2, first_index: 6 }],
    ]);
  });

  it("refuses items that are not an array or too many, a missing flow, and an inactive one", async () => {
    const { deps, step, config } = await setUp();
    await expect(startLoop(deps, step, config("not a list"))).rejects.toThrow(
      new NodeConfigError("each", "items: must be an array"),
    );
    await expect(startLoop(deps, step, config([1, 2, 3], { max_items: 2 }))).rejects.toThrow(
      /items: 3 items; the node allows at most 2/,
    );
    const missing = loopConfig.parse({ items: [], flow_id: "wf_ffffffffffffffffffffffff" });
    await expect(startLoop(deps, step, missing)).rejects.toBeInstanceOf(NodeConfigError);

    const inactive = await setUp("inactive");
    const refusal = await startLoop(inactive.deps, inactive.step, inactive.config([1])).catch(
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(NodeError);
    expect(refusal).toMatchObject({ retryable: false, message: expect.stringMatching(/is inactive, not active/) });
    expect(await inactive.prisma.run.count({ where: { parentRunId: inactive.step.runId } })).toBe(0);
  });
});
