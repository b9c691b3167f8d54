import type { DelayStart, NodeActivityInput } from "../../../core/contracts/run-flow.js";
import { definitionOf, type NodeActivityParts } from "./node-parts.js";
import { prepareNode } from "./prepare-node.js";
import { waitingStep } from "./waiting-step.js";

/** Starts a delay step: renders its duration; the workflow then sleeps on a durable timer. */
export function startDelayStep(
  parts: Pick<NodeActivityParts, "clock" | "steps" | "blobs" | "nodes">,
  args: NodeActivityInput,
): Promise<DelayStart> {
  return waitingStep(parts, args, async (number) => {
    const { config } = await prepareNode(parts, args);
    return { attempt: number, durationMs: definitionOf(parts.nodes, args.type).waitMs!(config) };
  });
}
