// A workspace's weight in its fair share of the task queue (docs/engine.md, "Flow control on
// Temporal"): every run carries its workspace as fairness key (core/contracts/run-priority.ts),
// and the task queue's own config on the Temporal server can weigh a key other than 1.0. Kept
// there, not sent with each start: no read per run, and a change reaches runs already waiting.
import type { Client } from "@temporalio/client";
import proto from "@temporalio/proto";

/** Temporal clamps weights to this range. */
export const WORKSPACE_WEIGHT = { min: 0.001, max: 1000 } as const;

/**
 * Weighs `workspaceId`'s runs `weight` times a default workspace's on `taskQueue` (its workflow
 * and activity tasks both); null puts it back to the default, 1.0.
 */
export async function setWorkspaceWeight(
  temporal: Pick<Client, "workflowService" | "options">,
  taskQueue: string,
  workspaceId: string,
  weight: number | null,
): Promise<void> {
  if (weight !== null && !(weight >= WORKSPACE_WEIGHT.min && weight <= WORKSPACE_WEIGHT.max)) {
    throw new RangeError(`a weight is from ${WORKSPACE_WEIGHT.min} to ${WORKSPACE_WEIGHT.max}`);
  }
  const { TASK_QUEUE_TYPE_WORKFLOW, TASK_QUEUE_TYPE_ACTIVITY } = proto.temporal.api.enums.v1.TaskQueueType;
  for (const taskQueueType of [TASK_QUEUE_TYPE_WORKFLOW, TASK_QUEUE_TYPE_ACTIVITY]) {
    await temporal.workflowService.updateTaskQueueConfig({
      namespace: temporal.options.namespace,
      identity: temporal.options.identity,
      taskQueue,
      taskQueueType,
      ...(weight === null
        ? { unsetFairnessWeightOverrides: [workspaceId] }
        : { setFairnessWeightOverrides: { [workspaceId]: weight } }),
    });
  }
}
