// What model calls cost, read back: a workspace's usage per day, flow and model over a range of
// days (UTC), a run's per node and per call, an agent run's per step.
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import { DomainError } from "../errors.js";

type Db = Pick<PrismaClient, "$queryRaw" | "run" | "agentRun">;

/** The figures of a group of calls. */
export interface UsageFigures {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  /** US dollars, of the calls whose model has a price. */
  cost: number;
  /** Calls of models without a price (their cost is not in `cost`). */
  unpriced_calls: number;
}

interface FigureRow {
  calls: bigint;
  input_tokens: bigint | null;
  output_tokens: bigint | null;
  cost: Prisma.Decimal | null;
  unpriced_calls: bigint;
}

const FIGURES = Prisma.sql`
  count(*) AS calls, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
  coalesce(sum(cost), 0) AS cost, count(*) FILTER (WHERE cost IS NULL) AS unpriced_calls`;

export const figuresOf = (row: FigureRow | undefined): UsageFigures => ({
  calls: Number(row?.calls ?? 0),
  input_tokens: Number(row?.input_tokens ?? 0),
  output_tokens: Number(row?.output_tokens ?? 0),
  cost: Number(row?.cost ?? 0),
  unpriced_calls: Number(row?.unpriced_calls ?? 0),
});

/** The most days one usage read covers. */
export const MAX_USAGE_DAYS = 366;
const DAY_MS = 86_400_000;

/** A range of whole UTC days, `from` to `to` included. */
export interface DayRange {
  from: string;
  to: string;
}

/** The range asked for, checked: the last 30 days up to today by default. */
export function dayRange(now: Date, asked: { from?: string; to?: string }): DayRange & { start: Date; end: Date } {
  const today = now.toISOString().slice(0, 10);
  const to = asked.to ?? today;
  const from = asked.from ?? new Date(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS).toISOString().slice(0, 10);
  const start = new Date(`${from}T00:00:00Z`);
  const end = new Date(Date.parse(`${to}T00:00:00Z`) + DAY_MS);
  if (end <= start) throw new DomainError("invalid", "validation_failed", "`from` must not be after `to`");
  if (end.getTime() - start.getTime() > MAX_USAGE_DAYS * DAY_MS) {
    throw new DomainError("invalid", "validation_failed", `At most ${MAX_USAGE_DAYS} days at once`);
  }
  return { from, to, start, end };
}

/**
 * A workspace's usage over whole UTC days: the total, each day of the range (days without calls
 * too), each flow and each model, the most expensive first. With `flowId`, that flow's calls only.
 */
export async function workspaceUsage(
  { prisma }: { prisma: Db },
  workspaceId: string,
  range: ReturnType<typeof dayRange>,
  flowId?: string,
) {
  const where = Prisma.sql`workspace_id = ${workspaceId} AND created_at >= ${range.start} AND created_at < ${range.end}
    ${flowId === undefined ? Prisma.empty : Prisma.sql`AND flow_id = ${flowId}`}`;
  const [total, days, flows, models] = await Promise.all([
    sqlQuery<FigureRow>(prisma, Prisma.sql`SELECT ${FIGURES} FROM model_usage WHERE ${where}`),
    sqlQuery<FigureRow & { day: string }>(
      prisma,
      Prisma.sql`SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, ${FIGURES}
        FROM model_usage WHERE ${where} GROUP BY 1`,
    ),
    sqlQuery<FigureRow & { flow_id: string | null; flow_name: string | null }>(
      prisma,
      Prisma.sql`SELECT u.flow_id, f.name AS flow_name, ${FIGURES}
        FROM (SELECT * FROM model_usage WHERE ${where}) u LEFT JOIN flows f ON f.id = u.flow_id
        GROUP BY u.flow_id, f.name ORDER BY coalesce(sum(cost), 0) DESC, count(*) DESC LIMIT 100`,
    ),
    sqlQuery<FigureRow & { provider: string; model: string }>(
      prisma,
      Prisma.sql`SELECT provider, model, ${FIGURES} FROM model_usage WHERE ${where}
        GROUP BY provider, model ORDER BY coalesce(sum(cost), 0) DESC, count(*) DESC LIMIT 100`,
    ),
  ]);
  const byDay = new Map(days.map((row) => [row.day, row]));
  const everyDay: Array<{ day: string } & UsageFigures> = [];
  for (let t = range.start.getTime(); t < range.end.getTime(); t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    everyDay.push({ day, ...figuresOf(byDay.get(day)) });
  }
  return {
    currency: "USD" as const,
    from: range.from,
    to: range.to,
    flow_id: flowId ?? null,
    total: figuresOf(total[0]),
    days: everyDay,
    flows: flows.map(({ flow_id, flow_name, ...row }) => ({ flow_id, flow_name, ...figuresOf(row) })),
    models: models.map(({ provider, model, ...row }) => ({ provider, model, ...figuresOf(row) })),
  };
}

interface CallRow {
  id: string;
  node_id: string | null;
  agent_run_id: string | null;
  agent_step: number | null;
  provider: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  cost: Prisma.Decimal | null;
  created_at: Date;
}

const callView = (row: CallRow) => ({
  id: row.id,
  node_id: row.node_id,
  agent_run_id: row.agent_run_id,
  agent_step: row.agent_step,
  provider: row.provider,
  model: row.model,
  input_tokens: row.input_tokens,
  output_tokens: row.output_tokens,
  cost: row.cost === null ? null : Number(row.cost),
  created_at: row.created_at.toISOString(),
});

/** At most this many calls are listed with a run's usage (its figures count them all). */
const MAX_LISTED_CALLS = 500;

/** A run's usage: its total, per node (an ai.agent node's agent run counts under its node), and its calls. */
export async function runUsage({ prisma }: { prisma: Db }, workspaceId: string, runId: string) {
  const run = await prisma.run.findFirst({ where: { id: runId, workspaceId }, select: { id: true, flowId: true } });
  if (!run) throw new DomainError("not_found", "not_found", "No such run in this workspace");
  const where = Prisma.sql`workspace_id = ${workspaceId} AND run_id = ${runId}`;
  const [total, nodes, calls] = await Promise.all([
    sqlQuery<FigureRow>(prisma, Prisma.sql`SELECT ${FIGURES} FROM model_usage WHERE ${where}`),
    sqlQuery<FigureRow & { node_id: string }>(
      prisma,
      Prisma.sql`SELECT node_id, ${FIGURES} FROM model_usage WHERE ${where} GROUP BY node_id ORDER BY node_id`,
    ),
    sqlQuery<CallRow>(
      prisma,
      Prisma.sql`SELECT id, node_id, agent_run_id, agent_step, provider, model, input_tokens, output_tokens, cost, created_at
        FROM model_usage WHERE ${where} ORDER BY created_at, id LIMIT ${MAX_LISTED_CALLS}`,
    ),
  ]);
  return {
    run_id: run.id,
    flow_id: run.flowId,
    currency: "USD" as const,
    total: figuresOf(total[0]),
    nodes: nodes.map(({ node_id, ...row }) => ({ node_id, ...figuresOf(row) })),
    calls: calls.map(callView),
  };
}

/** An agent run's cost (null when none of its calls had a price) and each model step's, by step number. */
export async function agentRunCosts({ prisma }: { prisma: Db }, agentRunId: string) {
  const rows = await sqlQuery<{ agent_step: number; cost: Prisma.Decimal | null }>(
    prisma,
    Prisma.sql`SELECT agent_step, cost FROM model_usage WHERE agent_run_id = ${agentRunId}`,
  );
  const steps = new Map(rows.map((row) => [row.agent_step, row.cost === null ? null : Number(row.cost)]));
  const priced = rows.filter((row) => row.cost !== null);
  const total =
    priced.length === 0 ? null : Number(priced.reduce((sum, row) => sum.add(row.cost!), new Prisma.Decimal(0)));
  return { total, steps };
}
