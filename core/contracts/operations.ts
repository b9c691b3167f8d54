// What the bulk-rerun workflow and its activities exchange (worker/workflows/bulk-rerun.workflow.ts,
// core/operations/): an operation's id and pace in, how many items are left out.

/** The workflow type that drives a bulk rerun; its workflow id is the operation's id. */
export const BULK_RERUN_WORKFLOW = "bulkRerun";

export interface BulkRerunInput {
  operationId: string;
  workspaceId: string;
  /** Reruns started per second at most (BULK_RERUN_PER_SECOND when the operation was asked for). */
  perSecond: number;
}

/** One pass of the activity: the items it settled, and how many are still pending. */
export interface RerunPass {
  started: number;
  skipped: number;
  pending: number;
}

/** How an operation ends: every item started or skipped, or cancelled (its pending items skipped). */
export type OperationEnd = "completed" | "cancelled";
