// The end of an agent run, written once: by its workflow, or by the reconciler when the
// workflow closed some other way.
import type { Clock } from "../../lib/clock.js";
import { jsonValue, type PrismaClient } from "../../lib/db.js";
import { emitEvent } from "../../lib/events.js";
import { newId } from "../../lib/ids.js";
import type { AgentEndReason, AgentRunResult } from "../contracts/agent-run.js";

/**
 * Ends the agent run only while it is running, with its closing log entry and agent.completed
 * in the same commit. Usage and steps default to what the recorded steps add up to.
 */
export async function finishAgentRunRecord(
  { prisma, clock }: { prisma: PrismaClient; clock: Clock },
  result: Omit<AgentRunResult, "usage" | "steps"> &
    Partial<Pick<AgentRunResult, "usage" | "steps">> & { reason: AgentEndReason },
): Promise<boolean> {
  const finishedAt = clock.now();
  return prisma.$transaction(async (tx) => {
    const run = await tx.agentRun.findUnique({ where: { id: result.agentRunId } });
    if (!run || run.status !== "running") return false;
    const usage = result.usage ?? {
      input_tokens: run.inputTokens,
      output_tokens: run.outputTokens,
      total_tokens: run.inputTokens + run.outputTokens,
    };
    const steps = result.steps ?? run.steps;
    const durationMs = Math.max(0, finishedAt.getTime() - run.startedAt.getTime());
    const { count } = await tx.agentRun.updateMany({
      where: { id: result.agentRunId, status: "running" },
      data: {
        status: result.status,
        reason: result.reason,
        answer: result.answer,
        error: result.error ? { message: result.error } : undefined,
        steps,
        inputTokens: usage.input_tokens,
        outputTokens: usage.output_tokens,
        finishedAt,
        durationMs,
      },
    });
    if (count === 0) return false;
    await tx.agentLog.create({
      data: {
        id: newId("alog"),
        workspaceId: run.workspaceId,
        agentRunId: run.id,
        agentId: run.agentId,
        level: result.status === "success" ? "info" : "warn",
        message: `agent run ended: ${result.status} (${result.reason})`,
        data: jsonValue({ steps, usage, ...(result.error ? { error: result.error } : {}) }),
        createdAt: finishedAt,
      },
    });
    await emitEvent(tx, clock, run.workspaceId, "agent.completed", {
      agent_run_id: run.id,
      agent_id: run.agentId,
      status: result.status,
      reason: result.reason,
      steps,
      usage,
      duration_ms: durationMs,
      started_at: run.startedAt.toISOString(),
      finished_at: finishedAt.toISOString(),
      parent_run_id: run.parentRunId,
    });
    return true;
  });
}
