// A budget raised or removed: the model calls it held back, or could have (a workspace budget: every
// budget wait of the workspace; a flow's: its runs' and agent runs'), that no budget holds any more
// are approved, as an admin's approval would be (the call runs once with its wait as its pass; the
// next call checks again), each with its wait.approved row. A wait that a budget of its workspace
// or flow still holds stays pending, for an admin to decide (or the next raise).
import { recordAudit, type AuditContext } from "../audit/audit-log.js";
import { reachedBudget } from "../usage/budgets.js";
import type { Actor } from "../workspaces/actor.js";
import type { WaitsContext } from "./wait-context.js";
import { deliverDecision } from "./wait-delivery.js";
import { withRun } from "./wait-views.js";

/** The oldest waits one change looks at; the others stay pending (a later change, or an admin). */
export const LIFTED_WAITS_MAX = 100;
/** Decisions handed to workflows at once. */
const DELIVERIES_AT_ONCE = 5;

/**
 * Who the workflow is told decided: the actor that changed the budget. Changing one takes an
 * admin (a member's role, or a token's admin scope), which is the least role deciding a budget wait.
 */
function decider(actor: Actor) {
  return actor.kind === "member"
    ? { id: actor.user.id, name: actor.user.name, role: actor.workspace.role }
    : { id: actor.token.id, name: actor.token.name, role: "admin" };
}

/** The budget raised or removed: its id, and its flow (null: the workspace's). */
export interface LiftedBudget {
  id: string;
  flowId: string | null;
}

/**
 * Approves the pending budget waits the budget held, or could have, whose run (or agent run) no
 * budget holds now; answers the ids of the waits approved. A decision the workflow did not take
 * (the run ended, someone decided first) leaves its wait as it is, and the budget's change stands.
 */
export async function approveLiftedBudgetWaits(
  context: WaitsContext,
  audit: AuditContext,
  budget: LiftedBudget,
): Promise<string[]> {
  const workspaceId = audit.actor.workspace.workspaceId;
  const { flowId } = budget;
  // A wait names the first budget it met; another, met too, may be the one lifted now.
  const scope = flowId
    ? { OR: [{ budget: { path: ["id"], equals: budget.id } }, { run: { flowId } }, { agentRun: { flowId } }] }
    : {};
  const waits = await context.prisma.wait.findMany({
    where: { workspaceId, status: "pending", reason: "budget", ...scope },
    include: { ...withRun, agentRun: { select: { agentId: true, flowId: true } } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: LIFTED_WAITS_MAX,
  });
  const approved: string[] = [];
  for (let at = 0; at < waits.length; at += DELIVERIES_AT_ONCE) {
    const batch = waits.slice(at, at + DELIVERIES_AT_ONCE);
    const settled = await Promise.all(batch.map((wait) => approveIfLifted(context, audit, budget.id, wait)));
    approved.push(...batch.filter((_wait, index) => settled[index]).map((wait) => wait.id));
  }
  return approved;
}

type LiftedWait = Awaited<ReturnType<WaitsContext["prisma"]["wait"]["findFirstOrThrow"]>> & {
  run: { flowId: string; flowName: string } | null;
  agentRun: { agentId: string; flowId: string | null } | null;
};

async function approveIfLifted(
  context: WaitsContext,
  audit: AuditContext,
  budgetId: string,
  wait: LiftedWait,
): Promise<boolean> {
  const flowId = wait.run?.flowId ?? wait.agentRun?.flowId ?? null;
  // Every budget the call would meet, as its own check reads them: none may be reached.
  if (await reachedBudget(context.prisma, { workspaceId: wait.workspaceId, flowId }, context.clock.now())) return false;
  try {
    await deliverDecision(context, wait, { waitId: wait.id, action: "approve", decidedBy: decider(audit.actor) });
  } catch (error) {
    context.logger.warn({ err: error, wait_id: wait.id }, "a budget wait its budget no longer holds was not approved");
    return false;
  }
  await recordAudit(context.prisma, context.clock, audit, {
    action: "wait.approved",
    object: { kind: "wait", id: wait.id },
    details: {
      run_id: wait.runId,
      agent_run_id: wait.agentRunId,
      node_id: wait.nodeId,
      reason: "budget",
      cause: "budget_raised",
      budget_id: budgetId,
      commented: false,
    },
  });
  return true;
}
