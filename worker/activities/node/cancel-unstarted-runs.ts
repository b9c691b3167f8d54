import type { CancelUnstartedRunsInput } from "../../../core/contracts/run-flow.js";
import { cancelChildRuns } from "../../../core/runs/start/child-runs.js";
import type { NodeActivityParts } from "./node-parts.js";

/** A loop's items it will not start (an item failed, or the run is being cancelled), ended as cancelled. */
export async function cancelUnstartedRuns(
  { prisma, clock, blobs }: Pick<NodeActivityParts, "prisma" | "clock" | "blobs">,
  input: CancelUnstartedRunsInput,
): Promise<void> {
  await cancelChildRuns({ prisma, clock, blobs }, input.runId, input.reason, input.runIds);
}
