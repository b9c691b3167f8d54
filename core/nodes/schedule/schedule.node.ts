// Entry node for flows started on a timetable. The flow's schedule lives in Temporal as a
// Schedule (core/flows/flow-schedules.ts), created, updated, paused and deleted with the
// flow, so operators see and pause it in the Temporal UI.
import { CronExpressionParser } from "cron-parser";
import { z } from "zod";
import { parseDuration } from "../../../lib/duration.js";
import { defineNode } from "../define-node.js";

const SHORTHANDS = new Set(["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]);

/** Why a cron expression is refused, or undefined when Temporal and the user read it the same way. */
export function cronProblem(expression: string): string | undefined {
  const text = expression.trim();
  if (SHORTHANDS.has(text)) return undefined;
  const fields = text.split(/\s+/);
  if (fields.length !== 5) {
    return `must have 5 fields (minute hour day-of-month month day-of-week) or be one of ${[...SHORTHANDS].join(", ")}; got ${fields.length}`;
  }
  try {
    const parsed = CronExpressionParser.parse(text);
    // Classic cron fires when either day field matches; Temporal requires both. Refuse the
    // ambiguous form instead of firing on days the user did not mean.
    if (!parsed.fields.dayOfMonth.isWildcard && !parsed.fields.dayOfWeek.isWildcard) {
      return "restricts both day-of-month and day-of-week; use one of them (or two schedules)";
    }
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
}

/** True for an IANA time zone name this runtime knows. */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const duration = (min: number, max: number, what: string) =>
  z
    .string()
    .max(20)
    .refine(
      (value) => {
        const ms = parseDuration(value);
        return ms !== undefined && ms >= min && ms <= max;
      },
      `${what}: a duration like 30s, 5m, 2h or 1d, from ${min / 1000}s to ${max / 86_400_000}d`,
    );

export const OVERLAP_POLICIES = [
  "skip",
  "buffer_one",
  "buffer_all",
  "cancel_other",
  "terminate_other",
  "allow_all",
] as const;

export const scheduleConfig = z
  .object({
    cron: z
      .string()
      .max(200)
      .superRefine((value, ctx) => {
        const problem = cronProblem(value);
        if (problem) ctx.addIssue({ code: "custom", message: `invalid cron expression: ${problem}` });
      })
      .optional()
      .meta({ label: "Cron expression (5 fields, in the time zone)" }),
    interval: duration(1000, 366 * 86_400_000, "interval")
      .optional()
      .meta({ label: "Or an interval (e.g. 30s, 15m, 1h)" }),
    timezone: z
      .string()
      .max(100)
      .refine(isTimeZone, "must be an IANA time zone name such as Europe/Paris")
      .default("UTC")
      .meta({ label: "Time zone" }),
    overlap: z
      .enum(OVERLAP_POLICIES)
      .default("skip")
      .meta({ label: "When the previous run is still going: skip, buffer, cancel or terminate it, or allow all" }),
    catchup_window: duration(1000, 366 * 86_400_000, "catchup_window")
      .default("1m")
      .meta({ label: "After an outage, fire missed times at most this late" }),
  })
  .refine((config) => (config.cron === undefined) !== (config.interval === undefined), {
    message: "give exactly one of cron and interval",
    path: ["cron"],
  });

export type ScheduleConfig = z.infer<typeof scheduleConfig>;

export const scheduleNode = defineNode({
  type: "schedule",
  version: 1,
  name: "Schedule",
  category: "trigger",
  description:
    "Starts the flow on a cron expression or a fixed interval, in a time zone, while the flow is active. Backed by a Temporal Schedule (visible and pausable in the Temporal UI); each run pins the flow version current when it fires. Output: {scheduled_at, fired_at, schedule_id}.",
  kind: "trigger",
  execution: "local",
  config: scheduleConfig,
});
