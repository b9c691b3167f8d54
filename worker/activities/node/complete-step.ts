import type { CompleteStepInput } from "../../../core/contracts/run-flow.js";
import type { NodeActivityParts } from "./node-parts.js";

/** Ends a step that waited in the workflow (delay, loop); returns the output as it travels. */
export async function completeStep(
  { steps, blobs }: Pick<NodeActivityParts, "steps" | "blobs">,
  input: CompleteStepInput,
): Promise<unknown> {
  const output = await blobs.offload(input.runId, input.nodeId, input.output);
  await steps.complete({ runId: input.runId, nodeId: input.nodeId }, input.attempt, output);
  return output;
}
