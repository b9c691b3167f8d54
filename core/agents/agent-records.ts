// The start of an agent run (by the API or an ai.agent node) and its end, each written once: the
// end by its workflow, or by the reconciler when the workflow closed some other way.
import type { Clock } from "../../lib/clock.js";
import type { JsonSeal } from "../../lib/crypto/sealed-json.js";
import { jsonValue, Prisma, type PrismaClient } from "../../lib/db.js";
import { emitEvent } from "../../lib/events.js";
import { newId } from "../../lib/ids.js";
import { runEndedNotice } from "../../lib/run-end-notices.js";
import type { AgentEndReason, AgentRunInput, AgentRunResult } from "../contracts/agent-run.js";
import { MAX_TOKENS_PER_CALL, type AgentSettings } from "./agent-settings.js";

/**
 * Records an agent run with its "agent run started" log entry, once (a repeated call with the
 * same id writes nothing), and returns the input of its agentRun workflow.
 */
export async function recordAgentRunStart(
  {
    prisma,
    clock,
    seal,
  }: {
    /** A transaction's client records it in that transaction. */
    prisma: PrismaClient | Prisma.TransactionClient;
    clock: Clock;
    seal: JsonSeal;
  },
  run: {
    id: string;
    workspaceId: string;
    settings: AgentSettings;
    createdBy?: string;
    parentRunId?: string;
    /** The flow of the parent run and its ai.agent node: where the run's cost is counted. */
    flowId?: string;
    parentNodeId?: string;
    /** Its place in its run's tree (core/runs/start/child-runs.ts); absent: its own root. */
    tree?: { rootRunId: string | null; depth: number; inErrorFlow: boolean };
  },
): Promise<AgentRunInput> {
  const { settings } = run;
  const startedAt = clock.now();
  const record = async (tx: Prisma.TransactionClient) => {
    const { count } = await tx.agentRun.createMany({
      data: [
        {
          id: run.id,
          workspaceId: run.workspaceId,
          agentId: settings.agentId,
          provider: settings.provider,
          model: settings.model,
          instructions: seal.sealText(settings.instructions),
          tools: settings.tools,
          approvalTools: settings.approvalTools,
          limits: jsonValue(settings.limits),
          createdBy: run.createdBy ?? null,
          parentRunId: run.parentRunId ?? null,
          flowId: run.flowId ?? null,
          parentNodeId: run.parentNodeId ?? null,
          ...run.tree,
          startedAt,
        },
      ],
      skipDuplicates: true,
    });
    if (count === 0) return;
    await tx.agentLog.create({
      data: {
        id: newId("alog"),
        workspaceId: run.workspaceId,
        agentRunId: run.id,
        agentId: settings.agentId,
        level: "info",
        message: seal.sealText("agent run started"),
        data: jsonValue(
          seal.seal({
            provider: settings.provider,
            model: settings.model,
            tools: settings.tools,
            ...(settings.approvalTools.length > 0 ? { approval_tools: settings.approvalTools } : {}),
            // Their addresses and tools; their credentials by id only.
            ...(settings.mcpServers.length > 0 ? { mcp_servers: settings.mcpServers } : {}),
            // Their models; their credentials by id only.
            ...(settings.fallbacks.length > 0 ? { fallbacks: settings.fallbacks } : {}),
            limits: settings.limits,
          }),
        ),
        createdAt: startedAt,
      },
    });
  };
  await ("$transaction" in prisma ? prisma.$transaction(record) : record(prisma));
  return agentRunInput(run.id, run.workspaceId, settings);
}

/** The input of an agent run's agentRun workflow, from its settings. */
function agentRunInput(agentRunId: string, workspaceId: string, settings: AgentSettings): AgentRunInput {
  return {
    agentRunId,
    workspaceId,
    agentId: settings.agentId,
    provider: settings.provider,
    model: settings.model,
    system: settings.system,
    instructions: settings.instructions,
    tools: settings.tools,
    limits: settings.limits,
    maxTokensPerCall: MAX_TOKENS_PER_CALL,
    ...(settings.approvalTools.length > 0 ? { approvalTools: settings.approvalTools } : {}),
    ...(settings.mcpServers.length > 0 ? { mcpServers: settings.mcpServers } : {}),
    ...(settings.fallbacks.length > 0 ? { fallbacks: settings.fallbacks } : {}),
  };
}

/**
 * Ends the agent run only while it is running, with its closing log entry and agent.completed
 * in the same commit. Usage and steps default to what the recorded steps add up to.
 */
export async function finishAgentRunRecord(
  { prisma, clock, seal }: { prisma: PrismaClient; clock: Clock; seal: JsonSeal },
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
        answer: result.answer === null ? null : seal.sealText(result.answer),
        error: result.error ? jsonValue(seal.seal({ message: result.error })) : undefined,
        steps,
        inputTokens: usage.input_tokens,
        outputTokens: usage.output_tokens,
        finishedAt,
        durationMs,
      },
    });
    if (count === 0) return false;
    // No approval outlives its agent run.
    await tx.wait.updateMany({
      where: { agentRunId: run.id, status: "pending" },
      data: { status: "cancelled", closedAt: finishedAt },
    });
    await tx.agentLog.create({
      data: {
        id: newId("alog"),
        workspaceId: run.workspaceId,
        agentRunId: run.id,
        agentId: run.agentId,
        level: result.status === "success" ? "info" : "warn",
        message: seal.sealText(`agent run ended: ${result.status} (${result.reason})`),
        data: jsonValue(seal.seal({ steps, usage, ...(result.error ? { error: result.error } : {}) })),
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
    await tx.$queryRaw(Prisma.sql`SELECT ${runEndedNotice(run.id)}`);
    return true;
  });
}
