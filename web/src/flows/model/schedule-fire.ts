// A schedule's test fire: the input a fire of the flow's schedule would give its run now
// (docs/triggers.md, "Schedules"), for the editor's "Test a fire now", which runs the draft on it
// as a test run and leaves the Temporal schedule as it is.
import type { FlowDefinition } from "../../types";

/** A fire's input: when it was due, when it fired (both now) and the fire's id. */
export interface ScheduleFireInput {
  scheduled_at: string;
  fired_at: string;
  schedule_id: string;
}

/** Whether the draft's entry node (its trigger) is a schedule. */
export const startsWithSchedule = (definition: FlowDefinition): boolean =>
  definition.nodes.some((node) => node.type === "schedule");

/**
 * The input of a fire at `now`. `schedule_id` is what a real fire gives: the fire's workflow id,
 * `scheduled-<flow id>-<time>`, the time in whole seconds as Temporal appends it.
 */
export function scheduleFireInput(flowId: string, now: Date): ScheduleFireInput {
  const at = now.toISOString();
  const second = at.replace(/\.\d{3}Z$/, "Z");
  return { scheduled_at: at, fired_at: at, schedule_id: `scheduled-${flowId}-${second}` };
}
