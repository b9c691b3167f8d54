import type { FinalizeRunInput } from "../../../core/contracts/run-flow.js";
import { cancelChildRuns } from "../../../core/runs/child-runs.js";
import { finalizeRunRecord } from "../../../core/runs/run-records.js";
import type { NodeActivityParts } from "./node-parts.js";

/** Ends the run once; returns its output as it travels (a reference when large). */
export async function finalizeRun(
  { prisma, clock, blobs, metrics }: Pick<NodeActivityParts, "prisma" | "clock" | "blobs" | "metrics">,
  input: FinalizeRunInput,
): Promise<unknown> {
  if (await finalizeRunRecord({ prisma, clock, blobs }, input)) metrics?.runsFinished.inc({ status: input.status });
  if (input.status !== "success") {
    const reason = `Not run: its parent run ${input.runId} ended (${input.status}) first`;
    await cancelChildRuns({ prisma, clock, blobs }, input.runId, reason);
  }
  return blobs.offload(input.runId, "$run", input.output ?? null);
}
