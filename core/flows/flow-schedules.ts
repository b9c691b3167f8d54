// A flow whose entry node is `schedule` has one Temporal Schedule, kept in step with the flow:
// created with it, updated with its versions, paused while it is not active, deleted with it.
// Operators see (and may pause) it in the Temporal UI under the id `flow-<flow id>`.
import { ScheduleAlreadyRunning, ScheduleNotFoundError, type Client, type ScheduleOptions } from "@temporalio/client";
import type { Config } from "../../lib/config.js";
import { operatorText } from "../contracts/operator-text.js";
import { runSearchAttributes } from "../contracts/run-flow.js";
import { runPriority } from "../contracts/run-priority.js";
import { SCHEDULED_RUN_WORKFLOW, type ScheduledRunInput } from "../contracts/scheduled-run.js";
import { storedDefinition } from "../contracts/flow-definition.js";
import { parseDuration } from "../../lib/duration.js";
import { scheduleConfig, type ScheduleConfig } from "../nodes/schedule/schedule.node.js";
import { temporalRefusal } from "../engine/temporal-start.js";

export const scheduleIdOf = (flowId: string) => `flow-${flowId}`;

/**
 * The longest a schedule's sync (or removal) may take, Temporal's answers and the wait for the
 * schedule to apply a change included; a flow's transaction around it is given this and more.
 */
const SCHEDULE_SYNC_MS = 15_000;
export const SCHEDULE_TRANSACTION = { maxWait: 5_000, timeout: SCHEDULE_SYNC_MS + 5_000 };

const OVERLAP = {
  skip: "SKIP",
  buffer_one: "BUFFER_ONE",
  buffer_all: "BUFFER_ALL",
  cancel_other: "CANCEL_OTHER",
  terminate_other: "TERMINATE_OTHER",
  allow_all: "ALLOW_ALL",
} as const;

interface ScheduledFlow {
  id: string;
  workspaceId: string;
  name: string;
  status: "active" | "inactive" | "archived";
  version: number;
  definition: unknown;
}

/** The schedule node's config, or undefined when the flow does not start with a schedule. */
export function scheduleOf(definition: unknown): ScheduleConfig | undefined {
  const entry = storedDefinition(definition).nodes?.find((node) => node.type === "schedule");
  return entry ? scheduleConfig.parse(entry.config ?? {}) : undefined;
}

interface FlowSchedulesDeps {
  temporal: Client;
  config: Pick<Config, "TEMPORAL_TASK_QUEUE">;
  /** Registers the search attributes the scheduled runs carry (Temporal refuses a schedule without them). */
  prepareNamespace?: () => Promise<void>;
}

const unavailable = (error: unknown) => temporalRefusal("The flow's schedule could not be saved", error);

const bounded = <T>(temporal: Client, call: () => Promise<T>) =>
  temporal.connection.withDeadline(Date.now() + SCHEDULE_SYNC_MS, call);

/** The Temporal Schedule of the flow: its spec, its scheduledRun action, its policies and pause state. */
function scheduleOptions(config: FlowSchedulesDeps["config"], flow: ScheduledFlow, schedule: ScheduleConfig) {
  const paused = flow.status !== "active";
  const args: [ScheduledRunInput] = [{ workspaceId: flow.workspaceId, flowId: flow.id }];
  return {
    spec: {
      ...(schedule.cron
        ? { cronExpressions: [schedule.cron] }
        : { intervals: [{ every: parseDuration(schedule.interval!)! }] }),
      timezone: schedule.timezone,
    },
    action: {
      type: "startWorkflow" as const,
      workflowType: SCHEDULED_RUN_WORKFLOW,
      workflowId: `scheduled-${flow.id}`,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      args,
      typedSearchAttributes: runSearchAttributes(flow.workspaceId, flow.id),
      // The fire's own tasks wait their turn as the run it starts will (its child run sets the same).
      // SDK 1.24 sends an action's priority (schedule-helpers.ts) but its option types leave it out.
      ...{ priority: runPriority({ workspaceId: flow.workspaceId, definition: storedDefinition(flow.definition) }) },
      staticSummary: operatorText(`schedule of ${flow.name} v${flow.version}`),
    },
    policies: { overlap: OVERLAP[schedule.overlap], catchupWindow: parseDuration(schedule.catchup_window)! },
    // A note unique to this change, so that sync() can tell when Temporal has applied it.
    state: { paused, note: `flow ${flow.status} at version ${flow.version} (${new Date().toISOString()})` },
  } satisfies Omit<ScheduleOptions, "scheduleId">;
}

type FlowScheduleOptions = ReturnType<typeof scheduleOptions>;

/** Deletes the flow's schedule; none is fine. */
export async function removeFlowSchedule({ temporal }: Pick<FlowSchedulesDeps, "temporal">, flowId: string) {
  try {
    await bounded(temporal, () => temporal.schedule.getHandle(scheduleIdOf(flowId)).delete());
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return;
    throw unavailable(error);
  }
}

/** Creates the schedule, or updates it and its pause state and waits until it has applied them. */
async function applySchedule(temporal: Client, flow: ScheduledFlow, options: FlowScheduleOptions): Promise<void> {
  try {
    await temporal.schedule.create({ scheduleId: scheduleIdOf(flow.id), ...options });
    return;
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  const handle = temporal.schedule.getHandle(scheduleIdOf(flow.id));
  // The update carries the state too: Temporal may apply it after the pause signal below.
  await handle.update((previous) => ({
    ...previous,
    spec: options.spec,
    action: options.action,
    policies: options.policies,
    state: { ...previous.state, paused: options.state.paused, note: options.state.note },
  }));
  if (options.state.paused) await handle.pause(options.state.note);
  else await handle.unpause(options.state.note);
  // Update and pause reach the schedule as signals: wait (briefly) until it has applied them,
  // so the answer and the next read show the new state.
  const deadline = Date.now() + 5_000;
  while ((await handle.describe()).state.note !== options.state.note && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Creates, updates, pauses or deletes the flow's schedule to match the flow. 503 when Temporal refuses. */
export async function syncFlowSchedule(deps: FlowSchedulesDeps, flow: ScheduledFlow): Promise<void> {
  const schedule = scheduleOf(flow.definition);
  if (!schedule) return removeFlowSchedule(deps, flow.id);
  const options = scheduleOptions(deps.config, flow, schedule);
  try {
    await deps.prepareNamespace?.();
    await bounded(deps.temporal, () => applySchedule(deps.temporal, flow, options));
  } catch (error) {
    throw unavailable(error);
  }
}

/** What GET /api/flows/{id} shows of the schedule: Temporal's own next fire times and state. */
export async function describeFlowSchedule({ temporal }: Pick<FlowSchedulesDeps, "temporal">, flow: ScheduledFlow) {
  const schedule = scheduleOf(flow.definition);
  if (!schedule) return null;
  const shown = {
    id: scheduleIdOf(flow.id),
    ...(schedule.cron ? { cron: schedule.cron } : { interval: schedule.interval }),
    timezone: schedule.timezone,
    overlap: schedule.overlap,
  };
  try {
    const described = await temporal.schedule.getHandle(scheduleIdOf(flow.id)).describe();
    return {
      ...shown,
      paused: described.state.paused,
      next_fire_times: described.state.paused
        ? []
        : described.info.nextActionTimes.slice(0, 5).map((time) => time.toISOString()),
      recent_fire_times: described.info.recentActions.slice(-5).map((action) => action.scheduledAt.toISOString()),
    };
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return { ...shown, paused: true, next_fire_times: [], missing: true };
    return {
      ...shown,
      paused: null,
      next_fire_times: null,
      error: `Temporal did not answer: ${(error as Error).message.split("\n")[0]}`,
    };
  }
}

export function createFlowSchedules(deps: FlowSchedulesDeps) {
  return {
    sync: (flow: ScheduledFlow) => syncFlowSchedule(deps, flow),
    remove: (flowId: string) => removeFlowSchedule(deps, flowId),
    describe: (flow: ScheduledFlow) => describeFlowSchedule(deps, flow),
  };
}

export type FlowSchedules = ReturnType<typeof createFlowSchedules>;
