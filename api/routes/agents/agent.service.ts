// Agent runs, their log and their memory. A run is recorded, then its agentRun workflow started
// (workflow id = agent run id); the workflow records every step and ends the run.
import type { Client } from "@temporalio/client";
import type { Clock } from "../../../lib/clock.js";
import type { Config } from "../../../lib/config.js";
import { jsonValue, type PrismaClient } from "../../../lib/db.js";
import { newId } from "../../../lib/ids.js";
import type { Logger } from "../../../lib/logger.js";
import type { RunEndListener } from "../../../lib/run-end-notices.js";
import { recordAgentRunStart } from "../../../core/agents/agent-records.js";
import { resolveAgentSettings } from "../../../core/agents/agent-settings.js";
import { AGENT_RUN_WORKFLOW } from "../../../core/contracts/agent-run.js";
import { operatorMemo } from "../../../core/contracts/operator-text.js";
import { agentSearchAttributes } from "../../../core/contracts/run-flow.js";
import type { AuthContext } from "../../auth/sessions.service.js";
import { afterTimeAndId } from "../../../lib/keyset.js";
import { decodeCursor, isTimeIdCursor, keysetPage } from "../../http/cursor.js";
import { HttpError, notFound } from "../../http/errors.js";
import { startWorkflowOrRefusal } from "../../../core/engine/temporal-start.js";
import type { RunAgentInput } from "./agent.schema.js";

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

const isLogCursor = isTimeIdCursor("c");
const isMemoryCursor = (value: unknown): value is { k: string } =>
  typeof value === "object" && value !== null && typeof (value as { k?: unknown }).k === "string";

export function createAgentService(deps: {
  prisma: PrismaClient;
  clock: Clock;
  temporal: Client;
  logger: Logger;
  config: Pick<Config, "TEMPORAL_TASK_QUEUE" | "AI_DEFAULT_PROVIDER" | "AI_DEFAULT_MODEL">;
  runEnds: RunEndListener;
  prepareNamespace?: () => Promise<void>;
}) {
  const { prisma, clock, temporal, config } = deps;

  async function find(workspaceId: string, id: string) {
    const run = await prisma.agentRun.findFirst({ where: { id, workspaceId } });
    if (!run) throw notFound("No such agent run in this workspace");
    return run;
  }

  /** The run once ended, or the running run when `waitMs` passes first: woken by its end, never polled. */
  const waitForEnd = (workspaceId: string, id: string, waitMs: number) =>
    deps.runEnds.waitForEnd(
      id,
      waitMs,
      () => find(workspaceId, id),
      (run) => run.status !== "running",
    );

  return {
    /** Records an agent run and starts its workflow; with `wait`, answers with the result when it comes in time. */
    async start(auth: AuthContext, body: RunAgentInput) {
      const workspaceId = auth.workspace.workspaceId;
      const settings = resolveAgentSettings(body, {
        provider: config.AI_DEFAULT_PROVIDER,
        model: config.AI_DEFAULT_MODEL,
      });
      const id = newId("agr");
      const workflowInput = await recordAgentRunStart(
        { prisma, clock },
        { id, workspaceId, settings, createdBy: auth.user.id },
      );
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
          input: step.input,
          output: step.output,
          error: step.error,
          usage: usageOf(step),
          started_at: step.startedAt.toISOString(),
          finished_at: step.finishedAt.toISOString(),
          duration_ms: step.durationMs,
        })),
      };
    },

    async cancel(workspaceId: string, id: string) {
      const run = await find(workspaceId, id);
      if (run.status !== "running") throw new HttpError(409, "not_running", `The agent run is already ${run.status}`);
      await temporal.workflow.getHandle(id).cancel();
      return agentRunView(run);
    },

    async logs(
      workspaceId: string,
      query: { agent_run_id?: string; agent?: string; level?: string; limit: number; cursor?: string },
    ) {
      const after = decodeCursor(query.cursor, isLogCursor);
      const levels = ["debug", "info", "warn", "error"];
      const rows = await prisma.agentLog.findMany({
        where: {
          workspaceId,
          ...(query.agent_run_id ? { agentRunId: query.agent_run_id } : {}),
          ...(query.agent ? { agentId: query.agent } : {}),
          ...(query.level ? { level: { in: levels.slice(levels.indexOf(query.level)) } } : {}),
          ...afterTimeAndId(
            after && { time: new Date(after.c), id: after.id },
            { time: "createdAt", id: "id" },
            "desc",
          ),
        },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: query.limit + 1,
      });
      const { page, next_cursor } = keysetPage(rows, query.limit, (last) => ({
        c: last.createdAt.toISOString(),
        id: last.id,
      }));
      return {
        items: page.map((row) => ({
          id: row.id,
          agent_run_id: row.agentRunId,
          agent_id: row.agentId,
          level: row.level,
          message: row.message,
          data: row.data,
          created_at: row.createdAt.toISOString(),
        })),
        next_cursor,
      };
    },

    async readMemory(
      workspaceId: string,
      query: { agent: string; key?: string; prefix?: string; limit: number; cursor?: string },
    ) {
      if (query.key !== undefined) {
        const row = await prisma.agentMemory.findUnique({
          where: { workspaceId_agentId_key: { workspaceId, agentId: query.agent, key: query.key } },
        });
        if (!row) throw notFound(`Agent ${query.agent} has no memory under "${query.key}"`);
        return memoryView(row);
      }
      const after = decodeCursor(query.cursor, isMemoryCursor);
      const rows = await prisma.agentMemory.findMany({
        where: {
          workspaceId,
          agentId: query.agent,
          key: { ...(query.prefix ? { startsWith: query.prefix } : {}), ...(after ? { gt: after.k } : {}) },
        },
        orderBy: { key: "asc" },
        take: query.limit + 1,
      });
      const { page, next_cursor } = keysetPage(rows, query.limit, (last) => ({ k: last.key }));
      return { items: page.map(memoryView), next_cursor };
    },

    async writeMemory(auth: AuthContext, body: { agent: string; key: string; value: unknown }) {
      const bytes = Buffer.byteLength(JSON.stringify(body.value));
      if (bytes > MAX_MEMORY_VALUE_BYTES) {
        throw new HttpError(
          413,
          "payload_too_large",
          `A memory value holds at most ${MAX_MEMORY_VALUE_BYTES} bytes of JSON`,
        );
      }
      const workspaceId = auth.workspace.workspaceId;
      const now = clock.now();
      const value = jsonValue(body.value);
      const row = await prisma.agentMemory.upsert({
        where: { workspaceId_agentId_key: { workspaceId, agentId: body.agent, key: body.key } },
        create: { workspaceId, agentId: body.agent, key: body.key, value, writtenBy: auth.user.id, updatedAt: now },
        update: { value, agentRunId: null, writtenBy: auth.user.id, updatedAt: now },
      });
      return memoryView(row);
    },
  };
}

export type AgentService = ReturnType<typeof createAgentService>;
