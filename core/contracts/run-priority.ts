// What Temporal is told of a run's place in the task queue (docs/engine.md, "Flow control on
// Temporal"): its flow's priority as the priority key, and its workspace as the fairness key, so
// that one workspace's flood takes its share of the queue and no more. The run's activities and
// child workflows inherit both unless they set their own (every child run sets its flow's).
// Workflow code imports it (worker/workflows/child-run.ts): no imports but types.
import type { Priority } from "@temporalio/common";

/**
 * A flow's priority (its definition's `priority`, docs/flows.md, "Flow control"): 1 is served
 * first, 5 last, 3 when unset. It is Temporal's priority key as it is (lower number first, five
 * levels by the server's default `matching.priorityLevels`).
 */
export const FLOW_PRIORITY = { highest: 1, lowest: 5, default: 3 } as const;

/**
 * The Temporal priority of a run of `definition` in `workspaceId` (workflow starts and child runs):
 * the run's `priority` as its starter rendered it (core/flows/priority-template.ts), else the
 * definition's number, else the default. A template is never rendered here (workflow code calls
 * this): a run without its rendered priority (a history of before them) gets the default.
 */
export function runPriority(run: {
  workspaceId: string;
  definition: { priority?: number | string };
  priority?: number;
}): Priority {
  const own = run.definition.priority;
  return {
    priorityKey: run.priority ?? (typeof own === "number" ? own : FLOW_PRIORITY.default),
    // Workspace ids (ws_ and 24 hex digits) are well within Temporal's 64 bytes.
    fairnessKey: run.workspaceId,
  };
}
