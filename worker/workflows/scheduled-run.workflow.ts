// One fire of a flow's Temporal Schedule: records a run of the flow's current version, then runs
// it as a child workflow (workflow id = run id) and waits for it, so the schedule's overlap
// policy (skip, buffer, cancel, terminate) applies to whole runs.
import { defineSearchAttributeKey, SearchAttributeType } from "@temporalio/common";
import { proxyActivities, workflowInfo } from "@temporalio/workflow";
import type { ScheduleActivities } from "../activities/schedule.activities.js";
import type { ScheduledRunInput, ScheduledRunResult } from "../../core/contracts/scheduled-run.js";
import { runChildFlow } from "./child-run.js";

const scheduledStartTime = defineSearchAttributeKey("TemporalScheduledStartTime", SearchAttributeType.DATETIME);

export async function scheduledRun(input: ScheduledRunInput): Promise<ScheduledRunResult> {
  const { startScheduledRun } = proxyActivities<ScheduleActivities>({
    startToCloseTimeout: "30 seconds",
    retry: { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "30 seconds", maximumAttempts: 20 },
  });
  const info = workflowInfo();
  const scheduledAt = info.typedSearchAttributes.get(scheduledStartTime) ?? info.startTime;
  const start = await startScheduledRun({ ...input, fireId: info.workflowId, scheduledAt: scheduledAt.toISOString() });
  if ("skipped" in start) return { status: "skipped", reason: start.skipped };
  const { run } = start;
  const result = await runChildFlow(run, {
    trigger: "schedule",
    parent: `schedule fire ${info.workflowId}`,
    memo: { version: run.version, trigger: "schedule" },
  });
  return { runId: run.runId, status: result.status };
}
