import type { RecordHandledFailureInput } from "../../../core/contracts/run-flow.js";
import type { NodeActivityParts } from "./node-parts.js";

/** Records a node's failure as handled per its on_error, on its last attempt's row. */
export async function recordHandledFailure(
  { steps }: Pick<NodeActivityParts, "steps">,
  input: RecordHandledFailureInput,
): Promise<void> {
  await steps.handled(input);
}
