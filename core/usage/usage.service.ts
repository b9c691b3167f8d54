// Cost and usage of model calls: the price table (shipped defaults, a workspace's own prices), and
// what calls cost per day, flow, model, run and agent run, and the budgets that hold calls back. Usage rows are written by the worker as
// calls answer (usage-records.ts); this service reads them. The factory only wires.
import type { Clock } from "../../lib/clock.js";
import type { PrismaClient } from "../../lib/db.js";
import type { AuditContext } from "../audit/audit-log.js";
import { listBudgets, removeBudget, setBudget, type BudgetChange } from "./budgets.js";
import { listPrices, removePrice, setPrice, type PriceChange } from "./model-prices.js";
import { dayRange, runUsage, workspaceUsage } from "./usage-reads.js";

export interface UsageServiceDeps {
  prisma: PrismaClient;
  clock: Clock;
  /** Approves the waits a raised or removed budget held that no budget holds now (the waits service's). */
  approveLiftedBudgetWaits?: (audit: AuditContext, budget: { id: string; flowId: string | null }) => Promise<string[]>;
}

export function createUsageService(deps: UsageServiceDeps) {
  const lifted = async (audit: AuditContext, budget: { id: string; flow_id: string | null }) => {
    await deps.approveLiftedBudgetWaits?.(audit, { id: budget.id, flowId: budget.flow_id });
  };
  return {
    /** Usage over whole UTC days (the last 30 by default), of the workspace or of one flow. */
    workspace: (workspaceId: string, query: { from?: string; to?: string; flowId?: string }) =>
      workspaceUsage(deps, workspaceId, dayRange(deps.clock.now(), query), query.flowId),
    run: (workspaceId: string, runId: string) => runUsage(deps, workspaceId, runId),
    prices: (workspaceId: string) => listPrices(deps, workspaceId),
    setPrice: (workspaceId: string, userId: string, price: PriceChange, audit?: AuditContext) =>
      setPrice(deps, workspaceId, userId, price, audit),
    removePrice: (workspaceId: string, provider: string, model: string, audit?: AuditContext) =>
      removePrice(deps, workspaceId, { provider, model }, audit),
    budgets: (workspaceId: string) => listBudgets(deps, workspaceId),
    /** Sets a budget; a raise that leaves it under its limit approves the waits it alone held. */
    async setBudget(workspaceId: string, userId: string, change: BudgetChange, audit?: AuditContext) {
      const { before, after } = await setBudget(deps, workspaceId, userId, change, audit);
      if (audit && before && after.limit > before.limit && !after.reached) await lifted(audit, after);
      return after;
    },
    /** Removes a budget, and approves the waits it alone held. */
    async removeBudget(workspaceId: string, id: string, audit?: AuditContext) {
      const removed = await removeBudget(deps, workspaceId, id, audit);
      if (audit) await lifted(audit, removed);
      return removed;
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;
