// Dashboard figures of a workspace, computed in PostgreSQL with aggregates over the runs index
// (workspace_id, started_at): counts by status over the last hour, day and week, success rate,
// duration percentiles, the busiest flows, agent runs with their token usage, and webhook
// delivery outcomes.
import type { Clock } from "../../../lib/clock.js";
import type { PrismaClient } from "../../../lib/db.js";

const HOUR = 3_600_000;
const WINDOWS = { last_hour: HOUR, last_day: 24 * HOUR, last_week: 7 * 24 * HOUR } as const;
type Window = keyof typeof WINDOWS;

interface StatusCounts {
  total: number;
  running: number;
  success: number;
  failed: number;
  cancelled: number;
  /** success / (success + failed); null when nothing finished. */
  success_rate: number | null;
}

/** Agent runs of the last week by status, and the tokens they used. */
function agentFigures(rows: Array<{ status: string; count: bigint; input_tokens: bigint; output_tokens: bigint }>) {
  const of = (status: string) => Number(rows.find((row) => row.status === status)?.count ?? 0);
  const input = rows.reduce((sum, row) => sum + Number(row.input_tokens), 0);
  const output = rows.reduce((sum, row) => sum + Number(row.output_tokens), 0);
  const [running, success, failed, cancelled] = ["running", "success", "failed", "cancelled"].map(of) as [
    number,
    number,
    number,
    number,
  ];
  return {
    window: "last_week",
    runs: {
      total: running + success + failed + cancelled,
      running,
      success,
      failed,
      cancelled,
      success_rate: success + failed > 0 ? success / (success + failed) : null,
    },
    tokens: { input, output, total: input + output },
  };
}

export function createMetricsService({ prisma, clock }: { prisma: PrismaClient; clock: Clock }) {
  return {
    async workspace(workspaceId: string) {
      const now = clock.now();
      const since = (window: Window) => new Date(now.getTime() - WINDOWS[window]);
      const weekAgo = since("last_week");

      // Independent aggregates, run side by side on separate connections.
      const [counts, durations, flows, deliveries, agents] = await Promise.all([
        prisma.$queryRaw<Array<{ status: string; last_hour: bigint; last_day: bigint; last_week: bigint }>>`
          SELECT status::text AS status,
                 count(*) FILTER (WHERE started_at >= ${since("last_hour")}) AS last_hour,
                 count(*) FILTER (WHERE started_at >= ${since("last_day")}) AS last_day,
                 count(*) AS last_week
          FROM runs
          WHERE workspace_id = ${workspaceId} AND started_at >= ${weekAgo} AND parent_run_id IS NULL
          GROUP BY status`,
        prisma.$queryRaw<Array<{ p50: number | null; p95: number | null; finished: bigint }>>`
          SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
                 percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95,
                 count(*) AS finished
          FROM runs
          WHERE workspace_id = ${workspaceId} AND started_at >= ${weekAgo} AND parent_run_id IS NULL
            AND status IN ('success', 'failed') AND duration_ms IS NOT NULL`,
        prisma.$queryRaw<Array<{ flow_id: string; flow_name: string; total: bigint; success: bigint; failed: bigint }>>`
          SELECT flow_id, max(flow_name) AS flow_name, count(*) AS total,
                 count(*) FILTER (WHERE status = 'success') AS success,
                 count(*) FILTER (WHERE status = 'failed') AS failed
          FROM runs
          WHERE workspace_id = ${workspaceId} AND started_at >= ${weekAgo} AND parent_run_id IS NULL
          GROUP BY flow_id
          ORDER BY total DESC, flow_id
          LIMIT 20`,
        prisma.$queryRaw<Array<{ status: string; count: bigint }>>`
          SELECT status::text AS status, count(*) AS count
          FROM webhook_deliveries
          WHERE workspace_id = ${workspaceId} AND created_at >= ${weekAgo}
          GROUP BY status`,
        prisma.$queryRaw<Array<{ status: string; count: bigint; input_tokens: bigint; output_tokens: bigint }>>`
          SELECT status::text AS status, count(*) AS count,
                 coalesce(sum(input_tokens), 0) AS input_tokens, coalesce(sum(output_tokens), 0) AS output_tokens
          FROM agent_runs
          WHERE workspace_id = ${workspaceId} AND started_at >= ${weekAgo}
          GROUP BY status`,
      ]);

      const duration = durations[0]!;
      const runs = Object.fromEntries(
        (Object.keys(WINDOWS) as Window[]).map((window) => {
          const of = (status: string) => Number(counts.find((row) => row.status === status)?.[window] ?? 0);
          const [running, success, failed, cancelled] = ["running", "success", "failed", "cancelled"].map(of) as [
            number,
            number,
            number,
            number,
          ];
          const figures: StatusCounts = {
            total: running + success + failed + cancelled,
            running,
            success,
            failed,
            cancelled,
            success_rate: success + failed > 0 ? success / (success + failed) : null,
          };
          return [window, figures];
        }),
      ) as Record<Window, StatusCounts>;

      const delivery = (status: string) => Number(deliveries.find((row) => row.status === status)?.count ?? 0);
      const [succeeded, failedDeliveries, pending] = [delivery("succeeded"), delivery("failed"), delivery("pending")];
      return {
        generated_at: now.toISOString(),
        runs,
        duration_ms: {
          window: "last_week",
          finished: Number(duration.finished),
          p50: duration.p50 === null ? null : Math.round(duration.p50),
          p95: duration.p95 === null ? null : Math.round(duration.p95),
        },
        runs_per_flow: flows.map((row) => ({
          flow_id: row.flow_id,
          flow_name: row.flow_name,
          total: Number(row.total),
          success: Number(row.success),
          failed: Number(row.failed),
        })),
        agents: agentFigures(agents),
        webhook_deliveries: {
          window: "last_week",
          succeeded,
          failed: failedDeliveries,
          pending,
          success_rate: succeeded + failedDeliveries > 0 ? succeeded / (succeeded + failedDeliveries) : null,
        },
      };
    },
  };
}

export type MetricsService = ReturnType<typeof createMetricsService>;
