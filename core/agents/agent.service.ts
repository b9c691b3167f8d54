// Agent runs, their log and their memory. A run is recorded, then its agentRun workflow started
// (workflow id = agent run id); the workflow records every step and ends the run.
import { createBlobStore } from "../runs/blobs.js";
import { cancelRunsBelow } from "../runs/run-tree-cancel.js";
import { createJsonSeal } from "../../lib/crypto/sealed-json.js";
import type { Client } from "@temporalio/client";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import { DomainError } from "../errors.js";
import { jsonValue, type PrismaClient } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import type { Logger } from "../../lib/logger.js";
import type { RunEndListener } from "../../lib/run-end-notices.js";
import { recordAgentRunStart } from "./agent-records.js";
import { approvalToolsProblem, resolveAgentSettings, type AgentRequest } from "./agent-settings.js";
import { AGENT_RUN_WORKFLOW } from "../contracts/agent-run.js";
import { operatorMemo } from "../contracts/operator-text.js";
import { agentSearchAttributes } from "../contracts/run-flow.js";
import { levelsFrom, type LogLevel } from "../contracts/log-levels.js";
import type { Actor } from "../workspaces/actor.js";
import type { AiProvider } from "../ai/providers.js";
import type { CredentialsService } from "../credentials/credentials.service.js";
import { afterTimeAndId, type TimeIdKey } from "../../lib/keyset.js";
import { AgentRunNotFound, AgentRunNotRunning, MemoryKeyNotFound, MemoryValueTooLarge } from "./agent-errors.js";
import { startWorkflowOrRefusal } from "../engine/temporal-start.js";

const MAX_MEMORY_VALUE_BYTES = 256 * 1024;

type AgentRunRow = NonNullable<Awaited<ReturnType<PrismaClient["agentRun"]["findUnique"]>>>;

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

const memoryView = (row: {
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

export function createAgentService(deps: {
  prisma: PrismaClient;
  clock: Clock;
  temporal: Client;
  logger: Logger;
  config: Pick<
    Config,
    | "TEMPORAL_TASK_QUEUE"
    | "AI_DEFAULT_PROVIDER"
    | "AI_DEFAULT_MODEL"
    | "SVC_ENCRYPTION_KEY"
    | "RUN_OUTPUT_OFFLOAD_BYTES"
  >;
  runEnds: RunEndListener;
  /** Checks the credential an agent run names, as a flow's references are checked when saved. */
  credentials: Pick<CredentialsService, "checkReferences">;
  prepareNamespace?: () => Promise<void>;
}) {
  const { prisma, clock, temporal, config } = deps;
  // Instructions, answers, errors, steps and log entries are stored sealed (README: "Data at rest").
  const seal = createJsonSeal(config.SVC_ENCRYPTION_KEY);
  const blobs = createBlobStore({ prisma, offloadBytes: config.RUN_OUTPUT_OFFLOAD_BYTES, seal });

  async function find(workspaceId: string, id: string) {
    const run = await prisma.agentRun.findFirst({ where: { id, workspaceId } });
    if (!run) throw new AgentRunNotFound();
    // The instructions stay sealed: no answer shows them.
    return {
      ...run,
      answer: run.answer === null ? null : seal.openText(run.answer),
      error: seal.open(run.error) as typeof run.error,
    };
  }

  /** The run once ended, or the running run when `waitMs` passes first: woken by its end, never polled. */
  const waitForEnd = (workspaceId: string, id: string, waitMs: number) =>
    deps.runEnds.waitForEnd(
      id,
      waitMs,
      () => find(workspaceId, id),
      (run) => run.status !== "running",
    );

  /** A credential of the workspace holding a key of `provider`, or a 400 that says what it is instead. */
  async function checkProviderCredential(workspaceId: string, credentialId: string, provider: AiProvider) {
    const problems = await deps.credentials.checkReferences(workspaceId, [
      { path: "body.credential_id", id: credentialId, accepts: ["ai_provider"], provider },
    ]);
    if (problems.length > 0) {
      throw new DomainError("invalid", "validation_failed", `credential_id: ${problems[0]!.message}`, {
        details: problems,
      });
    }
  }

  return {
    /** Records an agent run and starts its workflow; with `wait`, answers with the result when it comes in time. */
    async start(actor: Actor, body: AgentRequest & { wait?: number; credential_id?: string }) {
      const workspaceId = actor.workspace.workspaceId;
      const settings = resolveAgentSettings(body, {
        provider: config.AI_DEFAULT_PROVIDER,
        model: config.AI_DEFAULT_MODEL,
      });
      const problem = approvalToolsProblem(settings);
      if (problem) throw new DomainError("invalid", "validation_failed", problem);
      if (body.credential_id) await checkProviderCredential(workspaceId, body.credential_id, settings.provider);
      const id = newId("agr");
      const recorded = await recordAgentRunStart(
        { prisma, clock, seal },
        { id, workspaceId, settings, createdBy: actor.user.id },
      );
      // The credential travels by id: the worker opens it for each model call.
      const workflowInput = body.credential_id ? { ...recorded, credentialId: body.credential_id } : recorded;
      const refusal = await startWorkflowOrRefusal({
        temporal,
        prepareNamespace: deps.prepareNamespace,
        workflowId: id,
        start: (starter) =>
          starter.workflow.start(AGENT_RUN_WORKFLOW, {
            workflowId: id,
            // One execution per record: a start that reaches Temporal late never runs it twice.
            workflowIdReusePolicy: "REJECT_DUPLICATE",
            taskQueue: config.TEMPORAL_TASK_QUEUE,
            args: [workflowInput],
            typedSearchAttributes: agentSearchAttributes(workspaceId),
            memo: operatorMemo({ agent_id: settings.agentId }),
          }),
        what: "The agent run could not be started",
        extra: { agent_run_id: id },
        logger: deps.logger,
      });
      if (refusal) {
        // An unknown outcome (Temporal unreachable mid-start) leaves the record running: the
        // reconciler ends it if its workflow never started, and leaves it if it did.
        if (!refusal.refused) throw refusal;
        await prisma.agentRun.updateMany({
          where: { id, status: "running" },
          data: {
            status: "failed",
            reason: "not_started",
            error: { message: refusal.message },
            finishedAt: clock.now(),
            durationMs: 0,
          },
        });
        throw refusal;
      }
      const run = body.wait ? await waitForEnd(workspaceId, id, body.wait) : await find(workspaceId, id);
      return { run, ended: run.status !== "running" };
    },

    async get(workspaceId: string, id: string) {
      const run = await find(workspaceId, id);
      const steps = await prisma.agentStep.findMany({ where: { agentRunId: id }, orderBy: { number: "asc" } });
      return {
        agent_run: agentRunView(run),
        steps: steps.map((step) => ({
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
        })),
      };
    },

    async cancel(workspaceId: string, id: string) {
      const run = await find(workspaceId, id);
      if (run.status !== "running") throw new AgentRunNotRunning(run.status);
      await temporal.workflow.getHandle(id).cancel();
      // The runs its flow_run tool started, and theirs (core/runs/run-tree-cancel.ts).
      await cancelRunsBelow({ ...deps, blobs }, { id, workspaceId, rootRunId: run.rootRunId });
      return agentRunView(run);
    },

    /** The agent log, newest first; `after` continues after an entry a page showed (its time and id). */
    async logs(
      workspaceId: string,
      query: { agentRunId?: string; agent?: string; level?: LogLevel; limit: number; after?: TimeIdKey },
    ) {
      const levels = levelsFrom(query.level);
      const rows = await prisma.agentLog.findMany({
        where: {
          workspaceId,
          ...(query.agentRunId ? { agentRunId: query.agentRunId } : {}),
          ...(query.agent ? { agentId: query.agent } : {}),
          ...(levels ? { level: { in: [...levels] } } : {}),
          ...afterTimeAndId(query.after, { time: "createdAt", id: "id" }, "desc"),
        },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: query.limit,
      });
      return rows.map((row) => ({
        id: row.id,
        agent_run_id: row.agentRunId,
        agent_id: row.agentId,
        level: row.level,
        message: seal.openText(row.message),
        data: seal.open(row.data),
        created_at: row.createdAt.toISOString(),
      }));
    },

    /** One key of an agent's memory. */
    async readMemoryKey(workspaceId: string, agent: string, key: string) {
      const row = await prisma.agentMemory.findUnique({
        where: { workspaceId_agentId_key: { workspaceId, agentId: agent, key } },
      });
      if (!row) throw new MemoryKeyNotFound(agent, key);
      return memoryView(row);
    },

    /** An agent's memory in key order (by prefix when given); `afterKey` continues after a key a page showed. */
    async listMemory(workspaceId: string, query: { agent: string; prefix?: string; limit: number; afterKey?: string }) {
      const rows = await prisma.agentMemory.findMany({
        where: {
          workspaceId,
          agentId: query.agent,
          key: {
            ...(query.prefix ? { startsWith: query.prefix } : {}),
            ...(query.afterKey === undefined ? {} : { gt: query.afterKey }),
          },
        },
        orderBy: { key: "asc" },
        take: query.limit,
      });
      return rows.map(memoryView);
    },

    async writeMemory(actor: Actor, body: { agent: string; key: string; value: unknown }) {
      const bytes = Buffer.byteLength(JSON.stringify(body.value));
      if (bytes > MAX_MEMORY_VALUE_BYTES) {
        throw new MemoryValueTooLarge(MAX_MEMORY_VALUE_BYTES);
      }
      const workspaceId = actor.workspace.workspaceId;
      const now = clock.now();
      const value = jsonValue(body.value);
      const row = await prisma.agentMemory.upsert({
        where: { workspaceId_agentId_key: { workspaceId, agentId: body.agent, key: body.key } },
        create: { workspaceId, agentId: body.agent, key: body.key, value, writtenBy: actor.user.id, updatedAt: now },
        update: { value, agentRunId: null, writtenBy: actor.user.id, updatedAt: now },
      });
      return memoryView(row);
    },
  };
}

export type AgentService = ReturnType<typeof createAgentService>;
