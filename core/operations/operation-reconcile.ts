// Operations their workflow does not drive: one recorded whose workflow never started (the API
// died between the record and the start, and no one asked for it again) is started; one whose
// workflow closed without ending its record (terminated from the Temporal UI) is ended, its
// pending items skipped as cancelled. Either would otherwise stay `running` for good, and count
// against BULK_RERUNS_PER_WORKSPACE. The worker's reconciler runs it for its task queue.
import { WorkflowNotFoundError, type Client } from "@temporalio/client";
import type { Clock } from "../../lib/clock.js";
import type { PrismaClient } from "../../lib/db.js";
import { driveOperation, endOperationRecord } from "./bulk-reruns.js";

export interface OperationReconcileDeps {
  prisma: PrismaClient;
  clock: Clock;
  temporal: Client;
  /** The reconciling worker's task queue: its operations, and those recorded before operations named theirs. */
  taskQueue: string;
  /** The pace of an operation started here (BULK_RERUN_PER_SECOND). */
  perSecond: number;
}

/** Checks running operations asked for more than `minAgeMs` ago; answers how many it started or ended. */
export async function reconcileOperations(
  deps: OperationReconcileDeps,
  { minAgeMs = 15_000, limit = 50 }: { minAgeMs?: number; limit?: number } = {},
): Promise<number> {
  const { prisma, clock, temporal, taskQueue } = deps;
  const operations = await prisma.operation.findMany({
    where: {
      status: "running",
      createdAt: { lt: new Date(clock.now().getTime() - minAgeMs) },
      OR: [{ taskQueue }, { taskQueue: null }],
    },
    orderBy: { createdAt: "asc" },
    take: limit,
    select: { id: true, workspaceId: true },
  });
  let reconciled = 0;
  for (const operation of operations) {
    const status = await workflowStatus(temporal, operation.id);
    if (status === "RUNNING") continue;
    if (status === undefined) {
      await driveOperation(
        { temporal, config: { TEMPORAL_TASK_QUEUE: taskQueue } },
        { operationId: operation.id, workspaceId: operation.workspaceId, perSecond: deps.perSecond },
      );
    } else {
      // Its workflow ended it first if it could: ended here only while still running.
      await endOperationRecord(prisma, clock, operation.id, "cancelled");
    }
    reconciled++;
  }
  return reconciled;
}

/** The status of the operation's workflow; undefined when it never started. */
async function workflowStatus(temporal: Client, operationId: string): Promise<string | undefined> {
  try {
    return (await temporal.workflow.getHandle(operationId).describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}
