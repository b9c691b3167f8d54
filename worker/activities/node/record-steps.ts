import type { RecordStepsInput } from "../../../core/contracts/run-flow.js";
import type { NodeActivityParts } from "./node-parts.js";

/** Writes the rows of local nodes' successes (see NodeActivityResult.unwritten). */
export async function recordSteps({ steps }: Pick<NodeActivityParts, "steps">, input: RecordStepsInput): Promise<void> {
  await steps.record(steps.successes(input.runId, input.steps));
}
