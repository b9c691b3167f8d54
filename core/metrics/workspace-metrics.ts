// Dashboard figures of a workspace, computed in PostgreSQL with aggregates over the runs index
// (workspace_id, started_at): counts by status over the last hour, day and week, success rate,
// duration percentiles, the busiest flows, agent runs with their token usage, and webhook
// delivery outcomes.
import type { Clock } from "../../lib/clock.js";
import type { PrismaClient } from "../../lib/db.js";

const HOUR = 3_600_000;
const WINDOWS = { last_hour: HOUR, last_day: 24 * HOUR, last_week: 7 * 24 * HOUR } as const;
type Window = keyof typeof WINDOWS;

interface StatusCounts {
  total: number;
  running: number;
  /** Waiting at their flow's concurrency or throttle gate (runs only: agent runs never queue). */
  queued: number;
  success: number;
  failed: number;
  cancelled: number;
  /** success / (success + failed); null when nothing finished. */
  success_rate: number | null;
}

/** Counts by status, and the success rate of those that finished. */
function statusCounts(of: (status: string) => number): StatusCounts {
  const [running, queued, success, failed, cancelled] = ["running", "queued", "success", "failed", "cancelled"].map(
    of,
  ) as [number, number, number, number, number];
  return {
    total: running + queued + success + failed + cancelled,
    running,
    queued,
    success,
    failed,
    cancelled,
    success_rate: success + failed > 0 ? success / (success + failed) : null,
  };
}

type AgentRow = { status: string; count: bigint; input_tokens: bigint; output_tokens: bigint };
type CountRow = { status: string; last_hour: bigint; last_day: bigint; last_week: bigint };
type DurationRow = { p50: number | null; p95: number | null; finished: bigint };
type FlowRow = { flow_id: string; flow_name: string; total: bigint; success: bigint; failed: bigint };
type DeliveryRow = { status: string; count: bigint };

/** Agent runs of the last week by status, and the tokens they used. */
function agentFigures(rows: AgentRow[]) {
  const input = rows.reduce((sum, row) => sum + Number(row.input_tokens), 0);
  const output = rows.reduce((sum, row) => sum + Number(row.output_tokens), 0);
  return {
    window: "last_week",
    runs: statusCounts((status) => Number(rows.find((row) => row.status === status)?.count ?? 0)),
    tokens: { input, output, total: input + output },
  };
}

/** Top-level runs by status in each window. */
function runFigures(counts: CountRow[]): Record<Window, StatusCounts> {
  return Object.fromEntries(
    (Object.keys(WINDOWS) as Window[]).map((window) => [
      window,
      statusCounts((status) => Number(counts.find((row) => row.status === status)?.[window] ?? 0)),
    ]),
  ) as Record<Window, StatusCounts>;
}

function deliveryFigures(deliveries: DeliveryRow[]) {
  const delivery = (status: string) => Number(deliveries.find((row) => row.status === status)?.count ?? 0);
  const [succeeded, failed, pending] = [delivery("succeeded"), delivery("failed"), delivery("pending")];
  return {
    window: "last_week",
    succeeded,
    failed,
    pending,
    success_rate: succeeded + failed > 0 ? succeeded / (succeeded + failed) : null,
  };
}

/** Independent aggregates of the last week, run side by side on separate connections. */
function weekAggregates(prisma: PrismaClient, workspaceId: string, now: Date) {
  const since = (window: Window) => new Date(now.getTime() - WINDOWS[window]);
  const weekAgo = since("last_week");
  return Promise.all([
    prisma.$queryRaw<CountRow[]>`
      SELECT status::text AS status,
             count(*) FILTER (WHERE started_at >= ${since("last_hour")}) AS last_hour,
             count(*) FILTER (WHERE started_at >= ${since("last_day")}) AS last_day,
             count(*) AS last_week
      FROM runs
      WHERE workspace_id = ${workspaceId} AND started_at >= ${weekAgo} AND parent_run_id IS NULL AND NOT test
      GROUP BY status`,
    prisma.$queryRaw<DurationRow[]>`
      SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
             percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95,
             count(*) AS finished
      FROM runs
      WHERE workspace_id = ${workspaceId} AND started_at >= ${weekAgo} AND parent_run_id IS NULL AND NOT test
        AND status IN ('success', 'failed') AND duration_ms IS NOT NULL`,
    prisma.$queryRaw<FlowRow[]>`
      SELECT flow_id, max(flow_name) AS flow_name, count(*) AS total,
             count(*) FILTER (WHERE status = 'success') AS success,
             count(*) FILTER (WHERE status = 'failed') AS failed
      FROM runs
      WHERE workspace_id = ${workspaceId} AND started_at >= ${weekAgo} AND parent_run_id IS NULL AND NOT test
      GROUP BY flow_id
      ORDER BY total DESC, flow_id
      LIMIT 20`,
    prisma.$queryRaw<DeliveryRow[]>`
      SELECT status::text AS status, count(*) AS count
      FROM webhook_deliveries
      WHERE workspace_id = ${workspaceId} AND created_at >= ${weekAgo}
      GROUP BY status`,
    prisma.$queryRaw<AgentRow[]>`
      SELECT status::text AS status, count(*) AS count,
             coalesce(sum(input_tokens), 0) AS input_tokens, coalesce(sum(output_tokens), 0) AS output_tokens
      FROM agent_runs
      WHERE workspace_id = ${workspaceId} AND started_at >= ${weekAgo}
      GROUP BY status`,
  ]);
}

export async function workspaceMetrics({ prisma, clock }: { prisma: PrismaClient; clock: Clock }, workspaceId: string) {
  const now = clock.now();
  const [counts, durations, flows, deliveries, agents] = await weekAggregates(prisma, workspaceId, now);
  const duration = durations[0]!;
  return {
    generated_at: now.toISOString(),
    runs: runFigures(counts),
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
    webhook_deliveries: deliveryFigures(deliveries),
  };
}

export function createMetricsService(deps: { prisma: PrismaClient; clock: Clock }) {
  return { workspace: (workspaceId: string) => workspaceMetrics(deps, workspaceId) };
}

export type MetricsService = ReturnType<typeof createMetricsService>;
