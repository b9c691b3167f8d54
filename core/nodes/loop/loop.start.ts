// The start of a loop step, the loop's own behaviour (the workflow then runs the children and the
// activity records the step around this): checks the items and the flow to run per item, and
// records one child run per item, together and once.
import { derivedId } from "../../../lib/ids.js";
import type { Clock } from "../../../lib/clock.js";
import type { JsonSeal } from "../../../lib/crypto/sealed-json.js";
import type { PrismaClient } from "../../../lib/db.js";
import type { LoopStart } from "../../contracts/run-flow.js";
import { FlowInactive, FlowNotFound, InvalidPlan } from "../../errors.js";
import { recordRunStarts } from "../../runs/run-records.js";
import { pinFlow } from "../../runs/start-run.js";
import { NodeConfigError, NodeError } from "../node-error.js";
import type { NodeRegistry } from "../registry.js";
import type { LoopConfig } from "./loop.node.js";

/** Child run ids derive from the parent run, node and item: a retried attempt makes the same ones. */
export const childRunId = (runId: string, nodeId: string, index: number) => derivedId("run", [runId, nodeId, index]);

export interface LoopStartDeps {
  prisma: PrismaClient;
  clock: Clock;
  /** How the children's inputs are stored (sealed under SVC_ENCRYPTION_KEY when it is set). */
  seal: JsonSeal;
  nodes: NodeRegistry;
  /** The task queue the loop's workflow (and so its children) runs on. */
  taskQueue?: string;
}

/**
 * The children of a loop step over its rendered config, recorded with their run.started events.
 * `recorded` is how many this call recorded: 0 when a repeated attempt found them recorded.
 */
export async function startLoop(
  { prisma, clock, seal, nodes, taskQueue }: LoopStartDeps,
  step: { runId: string; nodeId: string; workspaceId: string },
  config: LoopConfig,
  /** Another node's children (flow.call: one, its output the node's): their trigger and shape. */
  { trigger = "loop", single = false }: { trigger?: string; single?: boolean } = {},
): Promise<{ start: Omit<LoopStart, "attempt">; recorded: number }> {
  const { items } = config;
  if (!Array.isArray(items)) throw new NodeConfigError(step.nodeId, "items: must be an array");
  if (items.length > config.max_items) {
    throw new NodeConfigError(step.nodeId, `items: ${items.length} items; the node allows at most ${config.max_items}`);
  }
  let flow;
  try {
    flow = await pinFlow(prisma, nodes, { workspaceId: step.workspaceId, flowId: config.flow_id });
  } catch (error) {
    if (error instanceof FlowNotFound) {
      throw new NodeConfigError(step.nodeId, `flow_id: no flow ${config.flow_id} in this workspace`);
    }
    if (error instanceof FlowInactive) {
      throw new NodeError(`The flow ${config.flow_id} is ${error.flowStatus}, not active`, { retryable: false });
    }
    if (error instanceof InvalidPlan) {
      throw new NodeError(`The flow ${config.flow_id} cannot run here: ${error.reason}`, { retryable: false });
    }
    throw error;
  }
  const now = clock.now();
  const children = items.map((item, index) => ({
    runId: childRunId(step.runId, step.nodeId, index),
    item,
    startedAt: now.toISOString(),
  }));
  const recorded = await prisma.$transaction((tx) =>
    recordRunStarts(
      tx,
      { clock, seal },
      children.map((child) => ({
        id: child.runId,
        workspaceId: step.workspaceId,
        flowId: flow.id,
        flowName: flow.name,
        version: flow.version,
        trigger,
        input: child.item,
        parentRunId: step.runId,
        taskQueue,
        startedAt: now,
      })),
    ),
  );
  return {
    start: {
      concurrency: config.concurrency,
      flow: { id: flow.id, name: flow.name, version: flow.version, definition: flow.definition, plan: flow.plan },
      children,
      ...(single ? { single, trigger } : {}),
    },
    recorded,
  };
}
