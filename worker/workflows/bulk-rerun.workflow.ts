// A bulk rerun (core/operations/): passes over its items at a bounded pace, one activity each,
// at most one a second, until none is pending; then its end. Cancelled, it ends its operation as
// cancelled (the items not yet rerun skipped). Its history stays bounded: it continues as new
// after PASSES_PER_HISTORY passes. Deterministic: no I/O here, only activities and timers.
import { CancellationScope, continueAsNew, isCancellation, proxyActivities, sleep } from "@temporalio/workflow";
import type { BulkRerunInput } from "../../core/contracts/operations.js";
import type { OperationActivities } from "../activities/operation.activities.js";

/** About 10 events each: 200 passes keep a history near 2,000 events. */
const PASSES_PER_HISTORY = 200;

const { rerunPass, endOperation } = proxyActivities<OperationActivities>({
  startToCloseTimeout: "5 minutes",
  // Temporal or the database away: the pass is tried again, without end (cancelling the operation stops it).
  retry: { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "1 minute" },
});

export async function bulkRerun(input: BulkRerunInput): Promise<{ status: "completed" | "cancelled" }> {
  try {
    for (let pass = 0; pass < PASSES_PER_HISTORY; pass++) {
      const began = Date.now();
      const { pending } = await rerunPass({ operationId: input.operationId, limit: input.perSecond });
      if (pending === 0) {
        await endOperation({ operationId: input.operationId, end: "completed" });
        return { status: "completed" };
      }
      // A pass a second at most: what is left of the second the pass began (workflow time).
      const left = 1000 - (Date.now() - began);
      if (left > 0) await sleep(left);
    }
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(() => endOperation({ operationId: input.operationId, end: "cancelled" }));
      return { status: "cancelled" };
    }
    throw error;
  }
  return continueAsNew<typeof bulkRerun>(input);
}
