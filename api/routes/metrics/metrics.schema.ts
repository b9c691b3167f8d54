import { z } from "zod";

const statusCountsSchema = z
  .object({
    total: z.number().int(),
    running: z.number().int(),
    queued: z
      .number()
      .int()
      .meta({ description: "Waiting at their flow's concurrency or throttle gate (always 0 for agent runs)" }),
    success: z.number().int(),
    failed: z.number().int(),
    cancelled: z.number().int(),
    success_rate: z
      .number()
      .nullable()
      .meta({ description: "success / (success + failed); null when nothing finished" }),
  })
  .meta({ id: "StatusCounts" });

/** GET /api/metrics: the dashboard's figures of the session's workspace. */
export const workspaceMetricsSchema = z
  .object({
    generated_at: z.string(),
    runs: z.object({ last_hour: statusCountsSchema, last_day: statusCountsSchema, last_week: statusCountsSchema }),
    duration_ms: z.object({
      window: z.literal("last_week"),
      finished: z.number().int(),
      p50: z.number().nullable(),
      p95: z.number().nullable(),
    }),
    runs_per_flow: z
      .array(
        z.object({
          flow_id: z.string(),
          flow_name: z.string(),
          total: z.number().int(),
          success: z.number().int(),
          failed: z.number().int(),
        }),
      )
      .meta({ description: "The busiest flows of the last week (at most 20)" }),
    agents: z.object({
      window: z.literal("last_week"),
      runs: statusCountsSchema,
      tokens: z.object({ input: z.number().int(), output: z.number().int(), total: z.number().int() }),
    }),
    webhook_deliveries: z.object({
      window: z.literal("last_week"),
      succeeded: z.number().int(),
      failed: z.number().int(),
      pending: z.number().int(),
      success_rate: z.number().nullable(),
    }),
  })
  .meta({ id: "WorkspaceMetrics" });
