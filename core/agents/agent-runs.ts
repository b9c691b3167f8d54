// Reading and cancelling an agent run, and waiting for its end.
import { WorkflowNotFoundError } from "@temporalio/client";
import { recordAudit, type AuditContext } from "../audit/audit-log.js";
import { cancelRunTree } from "../runs/cancel/run-tree-cancel.js";
import { agentRunCosts } from "../usage/usage-reads.js";
import type { AgentContext } from "./agent-context.js";
import { AgentRunNotFound, AgentRunNotRunning } from "./agent-errors.js";
import { agentRunView, agentStepView } from "./agent-views.js";

/** The run with its answer and error opened; the instructions stay sealed: no answer shows them. */
export async function findAgentRun(
  { prisma, seal }: Pick<AgentContext, "prisma" | "seal">,
  workspaceId: string,
  id: string,
) {
  const run = await prisma.agentRun.findFirst({ where: { id, workspaceId } });
  if (!run) throw new AgentRunNotFound();
  return {
    ...run,
    answer: run.answer === null ? null : seal.openText(run.answer),
    error: seal.open(run.error) as typeof run.error,
  };
}

/** The run once ended, or the running run when `waitMs` passes first: woken by its end, never polled. */
export const waitForAgentRunEnd = (context: AgentContext, workspaceId: string, id: string, waitMs: number) =>
  context.runEnds.waitForEnd(
    id,
    waitMs,
    () => findAgentRun(context, workspaceId, id),
    (run) => run.status !== "running",
  );

/** The run with its steps in order. */
export async function agentRunDetail(context: AgentContext, workspaceId: string, id: string) {
  const run = await findAgentRun(context, workspaceId, id);
  const steps = await context.prisma.agentStep.findMany({ where: { agentRunId: id }, orderBy: { number: "asc" } });
  const costs = await agentRunCosts(context, id);
  return {
    agent_run: { ...agentRunView(run), cost: costs.total },
    steps: steps.map((step) => ({ ...agentStepView(context.seal, step), cost: costs.steps.get(step.number) ?? null })),
  };
}

/** An agent run's status (404 when the workspace has no such run). */
export async function agentRunStatus(context: AgentContext, workspaceId: string, id: string): Promise<string> {
  return (await findAgentRun(context, workspaceId, id)).status;
}

export async function cancelAgentRun(context: AgentContext, workspaceId: string, id: string, audit?: AuditContext) {
  const run = await findAgentRun(context, workspaceId, id);
  if (run.status !== "running") throw new AgentRunNotRunning(run.status);
  // With the runs its flow_run tool started, and theirs (core/runs/cancel/run-tree-cancel.ts); its workflow
  // ends its own record.
  const { started } = await cancelRunTree(context, { id, kind: "agent", workspaceId });
  if (!started) throw new WorkflowNotFoundError("The agent run's workflow does not exist", id, undefined);
  // Written once the tree is closed, as a run's cancel is (its workflow ends the record after).
  if (audit)
    await recordAudit(context.prisma, context.clock, audit, {
      action: "agent_run.cancelled",
      object: { kind: "agent_run", id },
      details: { agent: run.agentId, model: run.model, parent_run_id: run.parentRunId, flow_id: run.flowId },
    });
  return agentRunView(run);
}
