import type { FinalizeRunInput } from "../../../core/contracts/run-flow.js";
import { cancelChildRuns } from "../../../core/runs/start/child-runs.js";
import { endRunRecord } from "../../../core/runs/records/run-ends.js";
import type { NodeActivityParts } from "./node-parts.js";

/** Ends the run once; returns its output as it travels (a reference when large). */
export async function finalizeRun(
  {
    prisma,
    clock,
    blobs,
    metrics,
    runEnded,
  }: Pick<NodeActivityParts, "prisma" | "clock" | "blobs" | "metrics" | "runEnded">,
  input: FinalizeRunInput,
): Promise<unknown> {
  const ended = await endRunRecord({ prisma, clock, blobs }, input);
  if (ended) {
    metrics?.runsFinished.inc({ status: input.status });
    runEnded?.(ended);
  }
  if (input.status !== "success") {
    const reason = `Not run: its parent run ${input.runId} ended (${input.status}) first`;
    await cancelChildRuns({ prisma, clock, blobs }, input.runId, reason);
  }
  return blobs.offload(input.runId, "$run", input.output ?? null);
}
