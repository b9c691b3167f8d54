// The activities of an agent run: one per model call, one per tool call, and the end. Each
// records its step once per (agent run, number), so a retried attempt never writes twice.
import { derivedId } from "../../lib/ids.js";
import { ApplicationFailure, Context } from "@temporalio/activity";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import { jsonValue, type PrismaClient } from "../../lib/db.js";
import type { EgressGuard } from "../../lib/egress/guarded-fetch.js";
import type { WorkerMetrics } from "../../lib/operator-metrics.js";
import { toolNameOf, toolSpecs, TOOL_ARGUMENTS, wireName, type ToolArguments } from "../../core/agents/tools.js";
import { parseBody } from "../../core/nodes/shared/http.js";
import { ProviderError, type AiProvider, type LanguageModels } from "../../core/ai/language-models.js";
import { missingApiKeyMessage } from "../../core/ai/providers.js";
import type { RunFlowInput } from "../../core/contracts/run-flow.js";
import type {
  AgentRunResult,
  ApprovalFinishInput,
  ApprovalStart,
  ApprovalStartInput,
  ModelCallInput,
  ModelCallResult,
  ToolCallInput,
  ToolCallResult,
} from "../../core/contracts/agent-run.js";
import { FlowInactive, FlowNotFound, InvalidPlan } from "../../core/errors.js";
import { NodeError } from "../../core/nodes/node-error.js";
import type { NodeRegistry } from "../../core/nodes/registry.js";
import { createBlobStore } from "../../core/runs/blobs.js";
import { createJsonSeal } from "../../lib/crypto/sealed-json.js";
import { childRunInput, ParentRunEnded, RunTreeLimit, startChildRuns } from "../../core/runs/child-runs.js";
import { finishAgentRunRecord } from "../../core/agents/agent-records.js";

/** What a tool answers the model at most; longer results are cut with a note. */
const MAX_TOOL_RESULT_CHARS = 20_000;

export interface AgentActivityDeps {
  prisma: PrismaClient;
  clock: Clock;
  nodes: NodeRegistry;
  config: Pick<Config, "RUN_OUTPUT_OFFLOAD_BYTES" | "SVC_ENCRYPTION_KEY" | "RUN_TREE_MAX_DEPTH" | "RUN_TREE_MAX_RUNS">;
  egress: EgressGuard;
  models: LanguageModels;
  /** The key of a provider for a workspace: the ai_provider credential named, its own (decrypted) or the server's. */
  apiKeyFor: (workspaceId: string, provider: AiProvider, credentialId?: string) => Promise<string | undefined>;
  metrics?: Pick<WorkerMetrics, "runsStarted" | "agentRuns" | "agentTokens">;
}

const asContent = (value: unknown): string => {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
  return text.length <= MAX_TOOL_RESULT_CHARS
    ? text
    : `${text.slice(0, MAX_TOOL_RESULT_CHARS)}… [cut: ${text.length} characters in all]`;
};

const toolError = (message: string): ToolCallResult => ({ content: JSON.stringify({ error: message }), isError: true });

/**
 * Runs a call while heartbeating every 2 s, so that a worker lost mid-call is noticed within the
 * workflow's heartbeat timeout instead of the call's whole time limit.
 */
async function heartbeating<T>(call: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const timer = setInterval(() => context.heartbeat(), 2000);
  try {
    return await call();
  } finally {
    clearInterval(timer);
  }
}

/** A tool call's approval wait derives its id from the agent run and step: a retried start finds it. */
export const approvalWaitId = (agentRunId: string, number: number) => derivedId("wait", ["agent", agentRunId, number]);

/** Who decides an agent's tool approvals: members who may decide waits (editors and up). */
const APPROVAL_DECIDERS = { minRole: "editor" } as const;

/** A flow run started by an agent's flow.run derives its id from the agent run and step. */
export const agentChildRunId = (agentRunId: string, number: number) => derivedId("run", ["agent", agentRunId, number]);

export function createAgentActivities(deps: AgentActivityDeps) {
  const { prisma, clock, models, egress } = deps;
  const seal = createJsonSeal(deps.config.SVC_ENCRYPTION_KEY);
  const blobs = createBlobStore({ prisma, offloadBytes: deps.config.RUN_OUTPUT_OFFLOAD_BYTES, seal });
  const childRuns = { clock, seal, nodes: deps.nodes, limits: deps.config };

  /** Writes a step once, and the run's counters from all its steps, in one commit. */
  async function recordStep(step: {
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
  }) {
    const finishedAt = clock.now();
    await prisma.$transaction([
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
    ]);
  }

  async function writeLog(
    run: { agentRunId: string; workspaceId: string; agentId: string },
    id: string,
    entry: { level: string; message: string; data?: unknown },
  ) {
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

  /** The tools other than flow.run (which the workflow runs as a child workflow). */
  const tools = {
    async "http.call"(args: ToolArguments<"http.call">, input: ToolCallInput): Promise<unknown> {
      const body =
        args.body === undefined || args.method === "GET" || args.method === "HEAD"
          ? undefined
          : typeof args.body === "string"
            ? args.body
            : JSON.stringify(args.body);
      const headers = new Headers(args.headers);
      if (body !== undefined && typeof args.body !== "string" && !headers.has("content-type")) {
        headers.set("content-type", "application/json");
      }
      // A retried attempt repeats the request: the key lets the receiver recognise it.
      headers.set("Idempotency-Key", `${input.agentRunId}:${input.number}`);
      const response = await egress.fetch(args.url, { method: args.method, headers, body, timeoutMs: 60_000 });
      const contentType = response.headers.get("content-type");
      return {
        status: response.status,
        content_type: contentType,
        body: parseBody(await response.text(), contentType, "auto"),
      };
    },
    async "log.write"(args: ToolArguments<"log.write">, input: ToolCallInput): Promise<unknown> {
      await writeLog(input, derivedId("alog", [`${input.agentRunId}:${input.number}`]), args);
      return { ok: true };
    },
    async "memory.read"(args: ToolArguments<"memory.read">, input: ToolCallInput): Promise<unknown> {
      const found = await prisma.agentMemory.findUnique({
        where: { workspaceId_agentId_key: { workspaceId: input.workspaceId, agentId: input.agentId, key: args.key } },
      });
      return found ? { key: args.key, found: true, value: found.value } : { key: args.key, found: false, value: null };
    },
    async "memory.write"(args: ToolArguments<"memory.write">, input: ToolCallInput): Promise<unknown> {
      const now = clock.now();
      const value = jsonValue(args.value ?? null);
      await prisma.agentMemory.upsert({
        where: { workspaceId_agentId_key: { workspaceId: input.workspaceId, agentId: input.agentId, key: args.key } },
        create: {
          workspaceId: input.workspaceId,
          agentId: input.agentId,
          key: args.key,
          value,
          agentRunId: input.agentRunId,
          updatedAt: now,
        },
        update: { value, agentRunId: input.agentRunId, writtenBy: null, updatedAt: now },
      });
      return { key: args.key, written: true };
    },
  };

  /** The tool and its checked arguments, or the error the model gets back. */
  function parseCall(input: ToolCallInput) {
    const name = toolNameOf(input.call.name);
    if (!name || !input.allowed.includes(name)) {
      return {
        error: `unknown tool "${input.call.name}"; the tools are ${input.allowed.map(wireName).join(", ")}`,
      };
    }
    let raw: unknown;
    try {
      raw = input.call.arguments.trim() === "" ? {} : JSON.parse(input.call.arguments);
    } catch {
      return {
        name,
        error: `the arguments of ${input.call.name} are not valid JSON: ${input.call.arguments.slice(0, 200)}`,
      };
    }
    const parsed = TOOL_ARGUMENTS[name].safeParse(raw);
    if (!parsed.success) {
      return {
        name,
        error: `invalid arguments for ${input.call.name}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`).join("; ")}`,
      };
    }
    return { name, args: parsed.data };
  }

  return {
    /** One model call with the conversation so far; retried by Temporal on 429, 5xx and lost connections. */
    async agentModelCall(input: ModelCallInput): Promise<ModelCallResult> {
      const startedAt = clock.now();
      const apiKey = await deps
        .apiKeyFor(input.workspaceId, input.provider, input.credentialId)
        .catch((error: unknown) => {
          // The credential named is gone or holds another provider's key: another attempt meets the same.
          if (error instanceof NodeError && !error.retryable)
            throw ApplicationFailure.nonRetryable(error.message, "CredentialError");
          throw error;
        });
      if (!apiKey) throw ApplicationFailure.nonRetryable(missingApiKeyMessage(input.provider), "NoApiKey");
      const step = {
        agentRunId: input.agentRunId,
        number: input.number,
        kind: "model" as const,
        input: { last: input.messages.at(-1) },
        startedAt,
      };
      let answer;
      try {
        answer = await heartbeating(() =>
          models.chat({
            provider: input.provider,
            model: input.model,
            apiKey,
            system: input.system,
            messages: input.messages,
            tools: toolSpecs(input.tools),
            maxTokens: input.maxTokens,
            signal: Context.current().cancellationSignal,
          }),
        );
      } catch (error) {
        if (error instanceof ProviderError && !error.retryable) {
          await recordStep({ ...step, name: input.model, output: null, error: error.message });
          throw ApplicationFailure.nonRetryable(error.message, "ProviderError");
        }
        throw error;
      }
      await recordStep({
        ...step,
        name: answer.model,
        output: { text: answer.text, tool_calls: answer.toolCalls },
        inputTokens: answer.usage.input_tokens,
        outputTokens: answer.usage.output_tokens,
      });
      return { text: answer.text, toolCalls: answer.toolCalls, usage: answer.usage };
    },

    /** One tool call (not flow.run). Bad names or arguments, and failures, go back to the model as errors. */
    async agentToolCall(input: ToolCallInput): Promise<ToolCallResult> {
      const startedAt = clock.now();
      const parsed = parseCall(input);
      let result: ToolCallResult;
      if ("error" in parsed && parsed.error !== undefined) {
        result = toolError(parsed.error);
      } else {
        const name = parsed.name as Exclude<keyof typeof tools, never>;
        try {
          const output = await heartbeating(() => tools[name](parsed.args as never, input));
          result = { content: asContent(output), isError: false };
        } catch (error) {
          result = toolError(`${input.call.name} failed: ${(error as Error).message}`);
        }
      }
      await recordStep({
        agentRunId: input.agentRunId,
        number: input.number,
        kind: "tool",
        name: parsed.name ?? input.call.name,
        input: { id: input.call.id, arguments: input.call.arguments },
        output: result.isError ? null : { content: result.content },
        error: result.isError ? result.content : undefined,
        startedAt,
      });
      return result;
    },

    /** flow.run, first half: checks the call and records the child run (its id derives from the step). */
    async agentStartFlowRun(input: ToolCallInput): Promise<{ run: RunFlowInput } | { result: ToolCallResult }> {
      const parsed = parseCall(input);
      const fail = async (message: string) => {
        const result = toolError(message);
        await recordStep({
          agentRunId: input.agentRunId,
          number: input.number,
          kind: "tool",
          name: "flow.run",
          input: { id: input.call.id, arguments: input.call.arguments },
          output: null,
          error: result.content,
          startedAt: clock.now(),
        });
        return { result };
      };
      if ("error" in parsed && parsed.error !== undefined) return fail(parsed.error);
      const args = parsed.args as ToolArguments<"flow.run">;
      let started;
      try {
        started = await prisma.$transaction((tx) =>
          startChildRuns(tx, childRuns, {
            workspaceId: input.workspaceId,
            flowId: args.flow_id,
            trigger: "agent",
            parent: { agentRunId: input.agentRunId },
            runs: [{ id: agentChildRunId(input.agentRunId, input.number), input: args.input ?? {} }],
            taskQueue: Context.current().info.taskQueue,
          }),
        );
      } catch (error) {
        if (error instanceof FlowNotFound) return fail(`no flow ${args.flow_id} in this workspace`);
        if (error instanceof FlowInactive) return fail(`the flow ${args.flow_id} is ${error.flowStatus}, not active`);
        if (error instanceof InvalidPlan) return fail(`the flow ${args.flow_id} cannot run here: ${error.reason}`);
        if (error instanceof RunTreeLimit || error instanceof ParentRunEnded) return fail(error.message);
        throw error;
      }
      if (started.recorded > 0) deps.metrics?.runsStarted.inc({ trigger: "agent" });
      return { run: childRunInput(started) };
    },

    /** flow.run, second half: the child run's outcome, recorded and worded for the model. */
    async agentFinishFlowRun(
      input: ToolCallInput & { runId: string; status: string; output?: unknown; error?: unknown; startedAt: string },
    ): Promise<ToolCallResult> {
      const output = await blobs.resolve(input.output);
      const body = { run_id: input.runId, status: input.status, output: output ?? null, error: input.error ?? null };
      const result: ToolCallResult = { content: asContent(body), isError: input.status !== "success" };
      await recordStep({
        agentRunId: input.agentRunId,
        number: input.number,
        kind: "tool",
        name: "flow.run",
        input: { id: input.call.id, arguments: input.call.arguments },
        output: { run_id: input.runId, status: input.status },
        error: result.isError ? result.content : undefined,
        startedAt: new Date(input.startedAt),
      });
      return result;
    },

    /**
     * A call of a tool that needs approval: records the pending wait (once per step) that the
     * inbox lists, with the tool and the arguments the model proposed. The workflow then waits.
     * Arguments the tool would refuse go back to the model at once (a tool step with the error):
     * nobody is asked to approve a call that cannot run.
     */
    async agentStartApproval(input: ApprovalStartInput): Promise<ApprovalStart> {
      const parsed = parseCall(input);
      if ("error" in parsed && parsed.error !== undefined) {
        const result = toolError(parsed.error);
        await recordStep({
          agentRunId: input.agentRunId,
          number: input.number,
          kind: "tool",
          name: input.tool,
          input: { id: input.call.id, arguments: input.call.arguments },
          output: null,
          error: result.content,
          startedAt: clock.now(),
        });
        return { result };
      }
      const now = clock.now();
      const waitId = approvalWaitId(input.agentRunId, input.number);
      await prisma.wait.createMany({
        data: [
          {
            id: waitId,
            workspaceId: input.workspaceId,
            agentRunId: input.agentRunId,
            toolName: input.tool,
            toolArguments: seal.sealText(input.call.arguments),
            attempt: 1,
            mode: "approval",
            message: seal.sealText(`The agent ${input.agentId} asks to call ${input.tool}`),
            minRole: APPROVAL_DECIDERS.minRole,
            expiresAt: new Date(now.getTime() + input.timeoutMs),
            createdAt: now,
          },
        ],
        skipDuplicates: true,
      });
      const wait = await prisma.wait.findUniqueOrThrow({ where: { id: waitId }, select: { createdAt: true } });
      return { waitId, deciders: APPROVAL_DECIDERS, since: wait.createdAt.toISOString() };
    },

    /**
     * The end of an approval: closes its wait (only while pending) and records the decision as
     * the agent's approval step, in one commit; a repeated call changes nothing.
     */
    async agentFinishApproval(input: ApprovalFinishInput): Promise<void> {
      const now = clock.now();
      const startedAt = new Date(input.since);
      const decided = input.status === "decided";
      await prisma.$transaction([
        prisma.wait.updateMany({
          where: { id: input.waitId, status: "pending" },
          data: {
            status: input.status,
            decision: input.decision ?? null,
            comment: input.comment ?? null,
            decidedBy: input.decidedBy?.id ?? null,
            decidedByName: input.decidedBy?.name ?? null,
            decidedAt: input.decidedAt ? new Date(input.decidedAt) : null,
            closedAt: now,
          },
        }),
        prisma.agentStep.createMany({
          data: [
            {
              agentRunId: input.agentRunId,
              number: input.number,
              kind: "approval",
              name: input.tool,
              input: jsonValue(
                seal.seal({ id: input.call.id, arguments: input.call.arguments, wait_id: input.waitId }),
              ),
              output: decided
                ? jsonValue(
                    seal.seal({
                      decision: input.decision,
                      comment: input.comment ?? null,
                      decided_by: input.decidedBy ?? null,
                      decided_at: input.decidedAt ?? null,
                    }),
                  )
                : jsonValue(null),
              error: decided ? null : seal.sealText("No decision before the agent's time ran out"),
              startedAt,
              finishedAt: now,
              durationMs: Math.max(0, now.getTime() - startedAt.getTime()),
            },
          ],
          skipDuplicates: true,
        }),
      ]);
    },

    /** Ends the agent run once (only from running), with agent.completed in the same commit. */
    async finishAgentRun(result: AgentRunResult & { workspaceId: string; agentId: string }): Promise<boolean> {
      const ended = await finishAgentRunRecord({ prisma, clock, seal }, result);
      if (ended && deps.metrics) {
        deps.metrics.agentRuns.inc({ status: result.status });
        deps.metrics.agentTokens.inc({ direction: "input" }, result.usage.input_tokens);
        deps.metrics.agentTokens.inc({ direction: "output" }, result.usage.output_tokens);
      }
      return ended;
    },
  };
}

export type AgentActivities = ReturnType<typeof createAgentActivities>;
