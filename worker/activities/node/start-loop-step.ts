import { Context } from "@temporalio/activity";
import type { LoopStart, NodeActivityInput } from "../../../core/contracts/run-flow.js";
import { flowCallNode, type FlowCallConfig } from "../../../core/nodes/flow-call/flow-call.node.js";
import type { LoopConfig } from "../../../core/nodes/loop/loop.node.js";
import { startFlowCall, startLoop } from "../../../core/runs/start/loop-runs.js";
import type { NodeActivityParts } from "./node-parts.js";
import { prepareNode } from "./prepare-node.js";
import { waitingStep } from "./waiting-step.js";

/** Starts a loop or flow.call step (core/runs/start/loop-runs.ts): one child run per item, recorded. */
export function startLoopStep(
  parts: Pick<NodeActivityParts, "prisma" | "clock" | "seal" | "config" | "steps" | "blobs" | "nodes" | "metrics">,
  args: NodeActivityInput,
): Promise<LoopStart> {
  const { prisma, clock, seal, nodes, config: limits, metrics } = parts;
  return waitingStep(parts, args, async (number) => {
    const { config, input } = await prepareNode(parts, args);
    const taskQueue = Context.current().info.taskQueue;
    const loopDeps = { prisma, clock, seal, nodes, limits, taskQueue };
    const { start, recorded } =
      args.type === flowCallNode.type
        ? await startFlowCall(loopDeps, { ...args, input }, config as FlowCallConfig)
        : await startLoop(loopDeps, args, config as LoopConfig);
    // A repeated attempt finds the children recorded already, events included.
    if (recorded > 0) metrics?.runsStarted.inc({ trigger: start.trigger ?? "loop" }, recorded);
    return { attempt: number, ...start };
  });
}
