// The child runs of a loop step (one per item) and of a flow.call step (one), the nodes' own
// behaviour: the workflow then runs them and the activity records the step around this. The
// items and the flow are checked here; the runs start through the one child-run starter.
import type { PrismaClient } from "../../../lib/db.js";
import { derivedId } from "../../../lib/ids.js";
import type { LoopStart } from "../../contracts/run-flow.js";
import { FlowInactive, FlowNotFound, InvalidPlan } from "../../errors.js";
import type { FlowCallConfig } from "../../nodes/flow-call/flow-call.node.js";
import type { LoopConfig } from "../../nodes/loop/loop.node.js";
import { NodeConfigError, NodeError } from "../../nodes/node-error.js";
import { ParentRunEnded, RunTreeLimit, startChildRuns, type ChildRunsDeps } from "./child-runs.js";

/** Child run ids derive from the parent run, node and item: a retried attempt makes the same ones. */
export const childRunId = (runId: string, nodeId: string, index: number) => derivedId("run", [runId, nodeId, index]);

export const FLOW_CALL_TRIGGER = "flow.call";

export interface LoopStartDeps extends ChildRunsDeps {
  prisma: PrismaClient;
  /** The task queue the loop's workflow (and so its children) runs on. */
  taskQueue?: string;
}

type LoopStarted = { start: Omit<LoopStart, "attempt">; recorded: number };

/**
 * The children of a loop step over its rendered config, recorded with their run.started events.
 * `recorded` is how many this call recorded: 0 when a repeated attempt found them recorded.
 */
export async function startLoop(
  deps: LoopStartDeps,
  step: { runId: string; nodeId: string; workspaceId: string },
  config: LoopConfig,
  /** Another node's children (flow.call: one, its output the node's): their trigger and shape. */
  { trigger = "loop", single = false }: { trigger?: "loop" | "flow.call"; single?: boolean } = {},
): Promise<LoopStarted> {
  const { items } = config;
  if (!Array.isArray(items)) throw new NodeConfigError(step.nodeId, "items: must be an array");
  if (items.length > config.max_items) {
    throw new NodeConfigError(step.nodeId, `items: ${items.length} items; the node allows at most ${config.max_items}`);
  }
  const inputs = config.batch_size === undefined ? items : batchesOf(items, config.batch_size);
  const started = await deps.prisma
    .$transaction((tx) =>
      startChildRuns(tx, deps, {
        workspaceId: step.workspaceId,
        flowId: config.flow_id,
        trigger,
        parent: { runId: step.runId, relation: "child" },
        runs: inputs.map((input, index) => ({ id: childRunId(step.runId, step.nodeId, index), input })),
        taskQueue: deps.taskQueue,
      }),
    )
    .catch((error: unknown) => {
      throw asNodeError(error, step.nodeId, config.flow_id);
    });
  const { flow } = started;
  return {
    start: {
      concurrency: config.concurrency,
      flow: { id: flow.id, name: flow.name, version: flow.version, definition: flow.definition, plan: flow.plan },
      children: started.runs.map((run) => ({
        runId: run.id,
        item: run.input,
        startedAt: run.startedAt.toISOString(),
        priority: run.priority,
      })),
      ...(single ? { single, trigger } : {}),
    },
    recorded: started.recorded,
  };
}

/** A batched loop's child inputs: `{items, batch, first_index}` for each `size` items in order. */
function batchesOf(items: unknown[], size: number): Array<{ items: unknown[]; batch: number; first_index: number }> {
  const batches = [];
  for (let first = 0; first < items.length; first += size) {
    batches.push({ items: items.slice(first, first + size), batch: batches.length, first_index: first });
  }
  return batches;
}

/** The start of a flow.call step: one child run of the flow called, run as a loop's children are. */
export function startFlowCall(
  deps: LoopStartDeps,
  step: { runId: string; nodeId: string; workspaceId: string; input: unknown },
  config: FlowCallConfig,
): Promise<LoopStarted> {
  const input = config.input === undefined ? step.input : config.input;
  return startLoop(
    deps,
    step,
    { flow_id: config.flow_id, items: [input], concurrency: 1, max_items: 1 },
    { trigger: FLOW_CALL_TRIGGER, single: true },
  );
}

/**
 * Why the children cannot start, as the node's error: none of these gets better on a retry. A
 * closed tree (RunTreeClosed) stays as it is: the node is cancelled with its run, not failed.
 */
function asNodeError(error: unknown, nodeId: string, flowId: string): unknown {
  if (error instanceof FlowNotFound) return new NodeConfigError(nodeId, `flow_id: no flow ${flowId} in this workspace`);
  if (error instanceof FlowInactive) {
    return new NodeError(`The flow ${flowId} is ${error.flowStatus}, not active`, { retryable: false });
  }
  if (error instanceof InvalidPlan) {
    return new NodeError(`The flow ${flowId} cannot run here: ${error.reason}`, { retryable: false });
  }
  if (error instanceof RunTreeLimit || error instanceof ParentRunEnded) {
    return new NodeError(error.message, { retryable: false, details: { code: error.code } });
  }
  return error;
}
