// An agent run's step rows and log entries. Each step is written once per (agent run, number),
// so a retried attempt never writes twice.
import { jsonValue, type Prisma } from "../../../lib/db.js";
import type { ToolCallInput, ToolCallResult } from "../../../core/contracts/agent-run.js";
import type { AgentRecords } from "./agent-context.js";

export interface AgentStepRecord {
  agentRunId: string;
  number: number;
  kind: "model" | "tool";
  name: string;
  input: unknown;
  output: unknown;
  error?: string;
  inputTokens?: number;
  outputTokens?: number;
  startedAt: Date;
  /** A model call's usage row (core/usage): written once with the step. */
  usage?: Prisma.ModelUsageCreateManyInput;
}

/**
 * Writes a step once, and the run's counters from all its steps, in one commit; with its model
 * call's usage. True when the usage row was written now (not by an earlier attempt).
 */
export async function recordAgentStep({ prisma, clock, seal }: AgentRecords, step: AgentStepRecord): Promise<boolean> {
  const finishedAt = clock.now();
  const [, , usage] = await prisma.$transaction([
    prisma.agentStep.createMany({
      data: [
        {
          agentRunId: step.agentRunId,
          number: step.number,
          kind: step.kind,
          name: step.name,
          input: jsonValue(seal.seal(step.input ?? null)),
          output: jsonValue(seal.seal(step.output ?? null)),
          error: step.error === undefined ? null : seal.sealText(step.error),
          inputTokens: step.inputTokens ?? 0,
          outputTokens: step.outputTokens ?? 0,
          startedAt: step.startedAt,
          finishedAt,
          durationMs: Math.max(0, finishedAt.getTime() - step.startedAt.getTime()),
        },
      ],
      skipDuplicates: true,
    }),
    prisma.$executeRaw`
      UPDATE agent_runs SET
        steps = (SELECT count(*) FROM agent_steps WHERE agent_run_id = ${step.agentRunId} AND kind = 'model'),
        input_tokens = (SELECT coalesce(sum(input_tokens), 0) FROM agent_steps WHERE agent_run_id = ${step.agentRunId}),
        output_tokens = (SELECT coalesce(sum(output_tokens), 0) FROM agent_steps WHERE agent_run_id = ${step.agentRunId})
      WHERE id = ${step.agentRunId}`,
    prisma.modelUsage.createMany({ data: step.usage ? [step.usage] : [], skipDuplicates: true }),
  ]);
  return usage.count === 1;
}

/** The step of a tool call refused before it ran (its error is what the model gets back). */
export async function recordRefusedToolCall(
  deps: AgentRecords,
  input: ToolCallInput,
  name: string,
  result: ToolCallResult,
): Promise<void> {
  await recordAgentStep(deps, {
    agentRunId: input.agentRunId,
    number: input.number,
    kind: "tool",
    name,
    input: { id: input.call.id, arguments: input.call.arguments },
    output: null,
    error: result.content,
    startedAt: deps.clock.now(),
  });
}

/** Writes a log entry of the agent once under its id. */
export async function writeAgentLog(
  { prisma, clock, seal }: AgentRecords,
  run: { agentRunId: string; workspaceId: string; agentId: string },
  id: string,
  entry: { level: string; message: string; data?: unknown },
): Promise<void> {
  await prisma.agentLog.createMany({
    data: [
      {
        id,
        workspaceId: run.workspaceId,
        agentRunId: run.agentRunId,
        agentId: run.agentId,
        level: entry.level,
        message: seal.sealText(entry.message),
        data: entry.data === undefined ? undefined : jsonValue(seal.seal(entry.data)),
        createdAt: clock.now(),
      },
    ],
    skipDuplicates: true,
  });
}
