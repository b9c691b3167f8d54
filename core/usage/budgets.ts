// Budgets: a limit of tokens or US dollars per UTC day or month, of a workspace or of one of its
// flows, counted from the usage table (durable: a call is counted once, and what was counted
// stays counted across restarts). A model call runs while no budget of its workspace and flow is
// reached; the call that crosses a budget runs (its size is known once it answers), the next waits.
import type { Clock } from "../../lib/clock.js";
import { derivedId } from "../../lib/ids.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import type { BudgetHold } from "../contracts/waits.js";
import { recordAudit, type AuditContext } from "../audit/audit-log.js";
import { DomainError } from "../errors.js";

export const BUDGET_METRICS = ["tokens", "cost"] as const;
export const BUDGET_PERIODS = ["day", "month"] as const;
export type BudgetMetric = (typeof BUDGET_METRICS)[number];
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

type Db = Pick<PrismaClient, "$queryRaw">;

/** A budget's id: one per workspace, flow (or none), metric and period. */
export const budgetIdOf = (workspaceId: string, flowId: string | null, metric: string, period: string) =>
  derivedId("bud", [workspaceId, flowId ?? "", metric, period]);

/** Where the current UTC day and month began. */
export function periodStarts(now: Date) {
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  return { day, month };
}

interface BudgetRow {
  id: string;
  workspace_id: string;
  flow_id: string | null;
  flow_name: string | null;
  metric: BudgetMetric;
  period: BudgetPeriod;
  /** numeric: a string or a Decimal, by the driver that read it. */
  limit: Prisma.Decimal | string;
  spent: Prisma.Decimal | string;
  updated_at: Date;
}

/** The budgets of a workspace (with `flowId`: its own and that flow's; else every one), each with what its period has spent. */
async function budgetsWithSpending(db: Db, workspaceId: string, now: Date, flowId?: string | null) {
  const { day, month } = periodStarts(now);
  const scope =
    flowId === undefined
      ? Prisma.empty
      : flowId === null
        ? Prisma.sql`AND b.flow_id IS NULL`
        : Prisma.sql`AND (b.flow_id IS NULL OR b.flow_id = ${flowId})`;
  return sqlQuery<BudgetRow>(
    db,
    Prisma.sql`
      SELECT b.id, b.workspace_id, b.flow_id, f.name AS flow_name, b.metric, b.period, b."limit", b.updated_at,
        (SELECT CASE WHEN b.metric = 'cost' THEN coalesce(sum(u.cost), 0)
                     ELSE coalesce(sum(u.input_tokens + u.output_tokens), 0) END
           FROM model_usage u
          WHERE u.workspace_id = b.workspace_id
            AND (b.flow_id IS NULL OR u.flow_id = b.flow_id)
            AND u.created_at >= CASE b.period WHEN 'day' THEN ${day}::timestamptz ELSE ${month}::timestamptz END
        ) AS spent
      FROM budgets b LEFT JOIN flows f ON f.id = b.flow_id
      WHERE b.workspace_id = ${workspaceId} ${scope}
      ORDER BY b.flow_id NULLS FIRST, b.metric, b.period`,
  );
}

/**
 * The first budget of the workspace, or of the call's flow, that is reached (what its period has
 * spent is at its limit or over); undefined when the call may run.
 */
export async function reachedBudget(
  db: Db,
  call: { workspaceId: string; flowId?: string | null },
  now: Date,
): Promise<BudgetHold | undefined> {
  const rows = await budgetsWithSpending(db, call.workspaceId, now, call.flowId || null);
  const reached = rows.find(isReached);
  return reached && holdOf(reached);
}

/**
 * The budget that holds a model call back before it runs (an agent's call, an ai.prompt node's),
 * or undefined when it may run: no budget of its workspace or flow is reached, or an admin
 * approved this call (`budgetPass`, the approved wait's id: it runs once, over the budget).
 */
export async function budgetHoldOf(
  db: Db,
  call: { workspaceId: string; flowId?: string | null; budgetPass?: string },
  now: Date,
): Promise<BudgetHold | undefined> {
  if (call.budgetPass) return undefined;
  return reachedBudget(db, { workspaceId: call.workspaceId, flowId: call.flowId ?? null }, now);
}

/** Whether what the budget's period has spent is at its limit or over. */
const isReached = (row: BudgetRow) => new Prisma.Decimal(row.spent).greaterThanOrEqualTo(row.limit);

const holdOf = (row: BudgetRow): BudgetHold => ({
  budgetId: row.id,
  flowId: row.flow_id,
  metric: row.metric,
  period: row.period,
  limit: Number(row.limit),
  spent: Number(row.spent),
});

export const budgetView = (row: BudgetRow, now: Date) => {
  const { day, month } = periodStarts(now);
  return {
    id: row.id,
    flow_id: row.flow_id,
    flow_name: row.flow_name,
    metric: row.metric,
    period: row.period,
    limit: Number(row.limit),
    spent: Number(row.spent),
    reached: isReached(row),
    period_start: (row.period === "day" ? day : month).toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
};
export type BudgetView = ReturnType<typeof budgetView>;

type BudgetDeps = { prisma: PrismaClient; clock: Clock };

/** The workspace's budgets and what each period has spent so far. */
export async function listBudgets({ prisma, clock }: BudgetDeps, workspaceId: string): Promise<BudgetView[]> {
  const now = clock.now();
  return (await budgetsWithSpending(prisma, workspaceId, now)).map((row) => budgetView(row, now));
}

export async function findBudget(deps: BudgetDeps, workspaceId: string, id: string): Promise<BudgetView> {
  const budget = (await listBudgets(deps, workspaceId)).find((b) => b.id === id);
  if (!budget) throw new DomainError("not_found", "not_found", "No such budget in this workspace");
  return budget;
}

export interface BudgetChange {
  flow_id?: string | null;
  metric: BudgetMetric;
  period: BudgetPeriod;
  limit: number;
}

/** The audit row's details of a budget: what it limits, never more. */
const budgetDetails = (budget: Pick<BudgetView, "flow_id" | "flow_name" | "metric" | "period" | "limit">) => ({
  flow_id: budget.flow_id,
  flow_name: budget.flow_name,
  metric: budget.metric,
  period: budget.period,
  limit: budget.limit,
});

/**
 * Sets a budget (one per workspace or flow, metric and period): a new one, or a new limit. With
 * `audit`, a change writes budget.set (the limit before and after) in its transaction; setting
 * the limit a budget has writes nothing.
 */
export async function setBudget(
  { prisma, clock }: BudgetDeps,
  workspaceId: string,
  userId: string,
  change: BudgetChange,
  audit?: AuditContext,
): Promise<{ before: BudgetView | undefined; after: BudgetView }> {
  const flowId = change.flow_id ?? null;
  if (flowId) {
    const flow = await prisma.flow.findFirst({ where: { id: flowId, workspaceId }, select: { id: true } });
    if (!flow) throw new DomainError("not_found", "not_found", "No such flow in this workspace");
  }
  const id = budgetIdOf(workspaceId, flowId, change.metric, change.period);
  const before = (await listBudgets({ prisma, clock }, workspaceId)).find((b) => b.id === id);
  const now = clock.now();
  await prisma.$transaction(async (tx) => {
    await tx.budget.upsert({
      where: { id },
      create: {
        id,
        workspaceId,
        flowId,
        metric: change.metric,
        period: change.period,
        limit: change.limit,
        createdBy: userId,
        updatedBy: userId,
        createdAt: now,
        updatedAt: now,
      },
      update: { limit: change.limit, updatedBy: userId, updatedAt: now },
    });
    if (!audit || before?.limit === change.limit) return;
    const flow = flowId ? await tx.flow.findUnique({ where: { id: flowId }, select: { name: true } }) : null;
    const { metric, period, limit } = change;
    await recordAudit(tx, clock, audit, {
      action: "budget.set",
      object: { kind: "budget", id },
      details: {
        ...budgetDetails({ flow_id: flowId, flow_name: flow?.name ?? null, metric, period, limit }),
        previous_limit: before?.limit ?? null,
      },
    });
  });
  return { before, after: await findBudget({ prisma, clock }, workspaceId, id) };
}

/** Removes a budget; with `audit`, writes budget.removed (what it limited) in the same transaction. */
export async function removeBudget(
  { prisma, clock }: BudgetDeps,
  workspaceId: string,
  id: string,
  audit?: AuditContext,
) {
  const budget = await findBudget({ prisma, clock }, workspaceId, id);
  await prisma.$transaction(async (tx) => {
    const { count } = await tx.budget.deleteMany({ where: { id, workspaceId } });
    if (audit && count > 0)
      await recordAudit(tx, clock, audit, {
        action: "budget.removed",
        object: { kind: "budget", id },
        details: budgetDetails(budget),
      });
  });
  return budget;
}
