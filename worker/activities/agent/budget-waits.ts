// A model call a budget held back: its wait (reason budget) recorded before the workflow waits for
// an admin's decision, and closed after (core/usage/budget-waits.ts).
import type { BudgetWaitFinishInput, BudgetWaitStartInput } from "../../../core/contracts/agent-run.js";
import { agentBudgetWaitId, finishBudgetWait, startBudgetWait } from "../../../core/usage/budget-waits.js";
import type { AgentRecords } from "./agent-context.js";

export async function agentStartBudgetWait(
  deps: AgentRecords,
  input: BudgetWaitStartInput,
): Promise<{ waitId: string; since: string }> {
  const waitId = agentBudgetWaitId(input.agentRunId, input.number);
  const run = await deps.prisma.agentRun.findUnique({
    where: { id: input.agentRunId },
    select: { flowId: true, parentRunId: true },
  });
  const { since } = await startBudgetWait(deps, {
    id: waitId,
    workspaceId: input.workspaceId,
    agentRunId: input.agentRunId,
    hold: input.hold,
    flowId: run?.flowId ?? null,
    expiresAt: new Date(deps.clock.now().getTime() + input.timeoutMs),
  });
  return { waitId, since };
}

export const agentFinishBudgetWait = (deps: AgentRecords, input: BudgetWaitFinishInput) =>
  finishBudgetWait(deps, input);
