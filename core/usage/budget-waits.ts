// A model call held back by a budget: its wait (reason budget, decided by admins), recorded with
// its budget.reached event in one commit, once per id; and its close once decided or expired.
import type { Clock } from "../../lib/clock.js";
import type { JsonSeal } from "../../lib/crypto/sealed-json.js";
import { jsonValue, type PrismaClient } from "../../lib/db.js";
import { emitEvent } from "../../lib/events.js";
import { derivedId } from "../../lib/ids.js";
import { BUDGET_DECIDERS, type BudgetHold, type WaitDecision } from "../contracts/waits.js";

/** A flow run's budget wait: its node, and the how-manieth hold of that node in the run. */
export const nodeBudgetWaitId = (runId: string, nodeId: string, hold: number) =>
  derivedId("wait", ["budget", runId, nodeId, hold]);

/** An agent run's budget wait: the step number of the model call it holds. */
export const agentBudgetWaitId = (agentRunId: string, number: number) =>
  derivedId("wait", ["budget", agentRunId, number]);

const money = (usd: number) => `$${Number(usd.toPrecision(6))}`;

/** The budget in words: "The workspace's daily cost budget ($5) is reached: $5.02 spent". */
export function budgetMessage(hold: BudgetHold): string {
  const whose = hold.flowId ? "The flow's" : "The workspace's";
  const per = hold.period === "day" ? "daily" : "monthly";
  const amount = (n: number) => (hold.metric === "cost" ? money(n) : `${n} tokens`);
  return `${whose} ${per} ${hold.metric === "cost" ? "cost" : "token"} budget (${amount(hold.limit)}) is reached: ${amount(hold.spent)} spent`;
}

export interface BudgetWaitStart {
  id: string;
  workspaceId: string;
  hold: BudgetHold;
  runId?: string;
  nodeId?: string;
  agentRunId?: string;
  /** The flow whose run (or ai.agent node's agent run) waits. */
  flowId?: string | null;
  /** When it expires (an agent's time left); absent: until decided, or its run ends. */
  expiresAt?: Date;
}

/** Records the wait and its budget.reached event once; answers when it was recorded (the wait's start). */
export async function startBudgetWait(
  { prisma, clock, seal }: { prisma: PrismaClient; clock: Clock; seal: JsonSeal },
  wait: BudgetWaitStart,
): Promise<{ since: string }> {
  const now = clock.now();
  const message = budgetMessage(wait.hold);
  const budget = {
    id: wait.hold.budgetId,
    flow_id: wait.hold.flowId,
    metric: wait.hold.metric,
    period: wait.hold.period,
    limit: wait.hold.limit,
    spent: wait.hold.spent,
  };
  await prisma.$transaction(async (tx) => {
    const { count } = await tx.wait.createMany({
      data: [
        {
          id: wait.id,
          workspaceId: wait.workspaceId,
          runId: wait.runId ?? null,
          nodeId: wait.nodeId ?? null,
          agentRunId: wait.agentRunId ?? null,
          attempt: 1,
          mode: "approval",
          reason: "budget",
          budget: jsonValue(budget),
          message: seal.sealText(message),
          minRole: BUDGET_DECIDERS.minRole,
          expiresAt: wait.expiresAt ?? null,
          createdAt: now,
        },
      ],
      skipDuplicates: true,
    });
    if (count === 0) return;
    await emitEvent(tx, clock, wait.workspaceId, "budget.reached", {
      wait_id: wait.id,
      message,
      budget,
      flow_id: wait.flowId ?? null,
      run_id: wait.runId ?? null,
      node_id: wait.nodeId ?? null,
      agent_run_id: wait.agentRunId ?? null,
    });
  });
  const row = await prisma.wait.findUniqueOrThrow({ where: { id: wait.id }, select: { createdAt: true } });
  return { since: row.createdAt.toISOString() };
}

export interface BudgetWaitEnd {
  waitId: string;
  status: "decided" | "expired" | "cancelled";
  decision?: WaitDecision;
  comment?: string;
  decidedBy?: { id: string; name: string };
  decidedAt?: string;
}

/** Closes the wait (only while pending); a repeated call changes nothing. */
export async function finishBudgetWait({ prisma, clock }: { prisma: PrismaClient; clock: Clock }, end: BudgetWaitEnd) {
  await prisma.wait.updateMany({
    where: { id: end.waitId, status: "pending" },
    data: {
      status: end.status,
      decision: end.decision ?? null,
      comment: end.comment ?? null,
      decidedBy: end.decidedBy?.id ?? null,
      decidedByName: end.decidedBy?.name ?? null,
      decidedAt: end.decidedAt ? new Date(end.decidedAt) : null,
      closedAt: clock.now(),
    },
  });
}
