// What a flow's Temporal Schedule starts: the scheduledRun workflow, which records a run of the
// flow's current version and runs it as its child (so overlap policies apply to whole runs).
export const SCHEDULED_RUN_WORKFLOW = "scheduledRun";

export interface ScheduledRunInput {
  workspaceId: string;
  flowId: string;
}

export interface StartScheduledRunInput extends ScheduledRunInput {
  /** The id of the scheduledRun workflow: one fire of the schedule, so one run. */
  fireId: string;
  /** When the schedule meant to fire (Temporal's TemporalScheduledStartTime). */
  scheduledAt: string;
}

export interface ScheduledRunResult {
  /** Absent when the fire started nothing (the flow is no longer active or no longer scheduled). */
  runId?: string;
  status: "success" | "failed" | "cancelled" | "skipped";
  reason?: string;
}
