// A budgeted node (ai.prompt) held back by a reached budget: its activity answers the budget
// without running the node; the run's workflow then records a budget wait (reason budget, admins
// decide: core/usage/budget-waits.ts, as for an agent's model call), waits for its decision and
// runs the node again with the approved wait as its pass, or ends the run cancelled.
import { Context } from "@temporalio/activity";
import type {
  NodeActivityInput,
  NodeActivityResult,
  NodeBudgetWaitFinishInput,
  NodeBudgetWaitStartInput,
} from "../../../core/contracts/run-flow.js";
import { finishBudgetWait, nodeBudgetWaitId, startBudgetWait } from "../../../core/usage/budget-waits.js";
import { budgetHoldOf } from "../../../core/usage/budgets.js";
import { definitionOf, type NodeActivityParts, recordWhenDatabaseAnswers } from "./node-parts.js";

type HoldParts = Pick<NodeActivityParts, "prisma" | "clock" | "nodes" | "steps">;

/**
 * The answer of a budgeted node's activity when a budget of its workspace or flow is reached: a
 * null output and the budget, the node not run. Checked only before the node first runs: a retry
 * of a call the budget let through is the same call (and counted once), so it is not held.
 */
export async function budgetHeld(parts: HoldParts, args: NodeActivityInput): Promise<NodeActivityResult | undefined> {
  if (!definitionOf(parts.nodes, args.type).budgeted || args.budgetPass) return undefined;
  if (Context.current().info.attempt > 1 && (await ranBefore(parts, args))) return undefined;
  const hold = await budgetHoldOf(parts.prisma, args, parts.clock.now());
  if (!hold) return undefined;
  // The rows of earlier local nodes this activity carries are written now: the run may wait long.
  if (args.carried?.length) await parts.steps.record(parts.steps.successes(args.runId, args.carried));
  return { output: null, budget: hold };
}

/** Whether an earlier attempt of the node ran it (every attempt that runs it writes its row). */
async function ranBefore({ prisma }: Pick<HoldParts, "prisma">, args: NodeActivityInput): Promise<boolean> {
  const row = await prisma.runStep.findFirst({
    where: { runId: args.runId, nodeId: args.nodeId },
    select: { attempt: true },
  });
  return row !== null;
}

/**
 * Records the node's budget wait and its budget.reached event once, and its step as running (the
 * attempt its approved run then writes its end on); answers the wait's id and start.
 */
export async function startNodeBudgetWait(
  parts: Pick<NodeActivityParts, "prisma" | "clock" | "seal" | "steps">,
  input: NodeBudgetWaitStartInput,
): Promise<{ waitId: string; since: string }> {
  // A node runs once in a run, and an approval lets it run: it is held at most once.
  const waitId = nodeBudgetWaitId(input.runId, input.nodeId, 1);
  const { since } = await startBudgetWait(parts, {
    id: waitId,
    workspaceId: input.workspaceId,
    runId: input.runId,
    nodeId: input.nodeId,
    flowId: input.flowId || null,
    hold: input.hold,
  });
  const key = { runId: input.runId, nodeId: input.nodeId, type: input.type };
  await recordWhenDatabaseAnswers(() => parts.steps.start(key, 1, new Date(since)));
  return { waitId, since };
}

/** Closes the node's budget wait (only while pending) and, when the node will not run, fails its step. */
export async function finishNodeBudgetWait(
  parts: Pick<NodeActivityParts, "prisma" | "clock" | "steps">,
  input: NodeBudgetWaitFinishInput,
): Promise<void> {
  const { stepError, runId, nodeId, type, since, ...end } = input;
  await finishBudgetWait(parts, end);
  if (!stepError) return;
  await parts.steps.fail({ runId, nodeId, type }, 1, new Date(since), { ...stepError, retryable: false });
}
