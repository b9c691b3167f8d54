import type { FinishWaitInput } from "../../../core/contracts/waits.js";
import { finishWaitRecord } from "../../../core/waits/wait-records.js";
import type { NodeActivityParts } from "./node-parts.js";

/**
 * Closes a wait (decided, expired) and ends its step with the node's output or error; returns
 * the output as it travels (a reference when large).
 */
export async function finishWait(
  { prisma, clock, seal, blobs }: Pick<NodeActivityParts, "prisma" | "clock" | "seal" | "blobs">,
  input: FinishWaitInput,
): Promise<unknown> {
  if (input.step.status !== "success") {
    await finishWaitRecord({ prisma, clock, seal }, input);
    return null;
  }
  const output = await blobs.offload(input.runId, input.nodeId, input.step.output);
  await finishWaitRecord({ prisma, clock, seal }, { ...input, step: { ...input.step, output } });
  return output;
}
