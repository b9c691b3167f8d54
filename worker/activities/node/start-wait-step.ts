import type { NodeActivityInput } from "../../../core/contracts/run-flow.js";
import type { WaitStart } from "../../../core/contracts/waits.js";
import type { WaitConfig } from "../../../core/nodes/wait/wait.node.js";
import { startWait } from "../../../core/waits/wait-start.js";
import type { NodeActivityParts } from "./node-parts.js";
import { prepareNode } from "./prepare-node.js";
import { waitingStep } from "./waiting-step.js";

/**
 * Starts a wait step (core/waits/wait-start.ts): the wait, recorded; the workflow then
 * waits for its decision (an update) or its timeout.
 */
export function startWaitStep(
  parts: Pick<NodeActivityParts, "prisma" | "clock" | "seal" | "steps" | "blobs" | "nodes">,
  args: NodeActivityInput,
): Promise<WaitStart> {
  const { prisma, clock, seal } = parts;
  return waitingStep(parts, args, async (number) => {
    const { config } = await prepareNode(parts, args);
    const start = await startWait({ prisma, clock, seal }, { ...args, attempt: number }, config as WaitConfig);
    return { attempt: number, ...start };
  });
}
