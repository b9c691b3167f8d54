// Agent runs, their steps and an agent's memory as the API answers them.
import type { PrismaClient } from "../../lib/db.js";
import type { JsonSeal } from "../../lib/crypto/sealed-json.js";

type AgentRunRow = NonNullable<Awaited<ReturnType<PrismaClient["agentRun"]["findUnique"]>>>;
type AgentStepRow = Awaited<ReturnType<PrismaClient["agentStep"]["findMany"]>>[number];

const usageOf = (run: Pick<AgentRunRow, "inputTokens" | "outputTokens">) => ({
  input_tokens: run.inputTokens,
  output_tokens: run.outputTokens,
  total_tokens: run.inputTokens + run.outputTokens,
});

export const agentRunView = (run: AgentRunRow) => ({
  id: run.id,
  agent_id: run.agentId,
  status: run.status,
  reason: run.reason,
  answer: run.answer,
  error: run.error,
  provider: run.provider,
  model: run.model,
  tools: run.tools,
  approval_tools: run.approvalTools,
  limits: run.limits,
  steps: run.steps,
  usage: usageOf(run),
  parent_run_id: run.parentRunId,
  started_at: run.startedAt.toISOString(),
  finished_at: run.finishedAt?.toISOString() ?? null,
  duration_ms: run.durationMs,
});

/** A step with its sealed input, output and error opened. */
export const agentStepView = (seal: JsonSeal, step: AgentStepRow) => ({
  number: step.number,
  kind: step.kind,
  name: step.name,
  input: seal.open(step.input),
  output: seal.open(step.output),
  error: step.error === null ? null : seal.openText(step.error),
  usage: usageOf(step),
  started_at: step.startedAt.toISOString(),
  finished_at: step.finishedAt.toISOString(),
  duration_ms: step.durationMs,
});

export const memoryView = (row: {
  agentId: string;
  key: string;
  value: unknown;
  agentRunId: string | null;
  writtenBy: string | null;
  updatedAt: Date;
}) => ({
  agent_id: row.agentId,
  key: row.key,
  value: row.value,
  agent_run_id: row.agentRunId,
  written_by: row.writtenBy,
  updated_at: row.updatedAt.toISOString(),
});
