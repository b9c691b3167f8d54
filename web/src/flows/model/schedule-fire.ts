// A schedule's test fire: the input a fire of the flow's schedule would give its run now
// (docs/triggers.md, "Schedules"), for the editor's "Test a fire now", which runs the draft on it
// as a test run and leaves the Temporal schedule as it is.
import type { FlowDefinition } from "../../types";

/** A fire's input: when it was due, when it fired (both now) and the flow's schedule id. */
export interface ScheduleFireInput {
  scheduled_at: string;
  fired_at: string;
  schedule_id: string;
}

/** Whether the draft's entry node (its trigger) is a schedule. */
export const startsWithSchedule = (definition: FlowDefinition): boolean =>
  definition.nodes.some((node) => node.type === "schedule");

/** The input of a fire at `now`; the schedule's id is `flow-<flow id>`, as the flow's schedule is named. */
export function scheduleFireInput(flowId: string, now: Date): ScheduleFireInput {
  const at = now.toISOString();
  return { scheduled_at: at, fired_at: at, schedule_id: `flow-${flowId}` };
}
