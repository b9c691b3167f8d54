// One activity per node type, named after it, so the Temporal UI reads like the flow. Each
// records its step, resolves large outputs, renders the config's templates, checks the config
// and runs the node.
import { ApplicationFailure, Context } from "@temporalio/activity";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import { databaseErrorReason, jsonColumn, whileDatabaseUnavailable, type PrismaClient } from "../../lib/db.js";
import {
  createEgressGuard,
  EgressLimitError,
  EgressRefusedError,
  type EgressGuard,
} from "../../lib/egress/guarded-fetch.js";
import type { WorkerMetrics } from "../../lib/operator-metrics.js";
import type {
  CancelUnstartedRunsInput,
  CompleteStepInput,
  DelayStart,
  FinalizeRunInput,
  AgentStart,
  LoopStart,
  NodeActivityInput,
  NodeActivityResult,
  NodeHandling,
  RecordHandledFailureInput,
  RecordStepsInput,
} from "../../core/contracts/run-flow.js";
import { handlingOf } from "../../core/flows/plan.js";
import { renderValue, TemplateLimitError, TemplateSyntaxError, type TemplateScope } from "../../core/flows/template.js";
import { literalFields, type NodeDefinition, type NodeEnv } from "../../core/nodes/define-node.js";
import { NodeConfigError, NodeError } from "../../core/nodes/node-error.js";
import type { AiAgentConfig } from "../../core/nodes/ai-agent/ai-agent.node.js";
import { startAgent } from "../../core/nodes/ai-agent/ai-agent.start.js";
import type { LoopConfig } from "../../core/nodes/loop/loop.node.js";
import { startFlowCall, startLoop } from "../../core/runs/loop-runs.js";
import { flowCallNode, type FlowCallConfig } from "../../core/nodes/flow-call/flow-call.node.js";
import type { WaitConfig } from "../../core/nodes/wait/wait.node.js";
import { startWait } from "../../core/nodes/wait/wait.start.js";
import type { FinishWaitInput, WaitStart } from "../../core/contracts/waits.js";
import {
  NODE_TEST_MAX_LOGS,
  type NodeTestInput,
  type NodeTestLogEntry,
  type NodeTestResult,
} from "../../core/contracts/node-test.js";
import { finishWaitRecord } from "../../core/waits/wait-records.js";
import type { NodeRegistry } from "../../core/nodes/registry.js";
import { createBlobStore } from "../../core/runs/blobs.js";
import { createJsonSeal } from "../../lib/crypto/sealed-json.js";
import { finalizeRunRecord } from "../../core/runs/run-records.js";
import { cancelChildRuns } from "../../core/runs/child-runs.js";
import { createStepStore, type StepError } from "../../core/runs/steps.js";
import { createWorkspaceStores } from "../../core/stores/workspace-stores.js";
import { createSandboxes, nodeSandbox, type Sandboxes } from "../../core/sandbox/js-sandbox-pool.js";
import { createApiKeyStore, type ApiKeyStore } from "../../core/ai/api-keys.js";
import { createCredentialsService, type CredentialsService } from "../../core/credentials/credentials.service.js";
import { createNodeCredentials, type NodeCredentialsHost } from "../../core/credentials/node-credentials.js";
import {
  AI_PROVIDERS,
  createLanguageModels,
  type AiConfigKey,
  type AiProvider,
  type LanguageModels,
} from "../../core/ai/language-models.js";

export interface NodeActivityDeps {
  prisma: PrismaClient;
  clock: Clock;
  nodes: NodeRegistry;
  config: Pick<
    Config,
    | "RUN_OUTPUT_OFFLOAD_BYTES"
    | "OBJECT_STORAGE_DIR"
    | "OBJECT_MAX_BYTES"
    | "SVC_ENCRYPTION_KEY"
    | "AI_DEFAULT_PROVIDER"
    | "AI_DEFAULT_MODEL"
    | "AI_KEYS_SECRET"
    | "CODE_SANDBOX_THREADS"
    | "RUN_TREE_MAX_DEPTH"
    | "RUN_TREE_MAX_RUNS"
    | "EXPRESSION_SANDBOX_PROCESSES"
    | EgressConfigKey
    | AiConfigKey
  >;
  /** The outbound-call guard handed to nodes as env.fetch; built from the config when absent. */
  egress?: EgressGuard;
  /** Language-model providers handed to nodes as env.ai; built from the config when absent. */
  models?: LanguageModels;
  /** The workspaces' credentials; built from the config when absent. */
  credentials?: CredentialsService;
  /** What nodes get as env.credentials, and AI nodes' keys; built from the others when absent. */
  nodeCredentials?: NodeCredentialsHost;
  /** Provider keys handed to nodes as env.apiKey; built from the config when absent. */
  apiKeys?: ApiKeyStore;
  /**
   * The sandboxes handed to nodes as env.sandbox (code, transform); built from the config when
   * absent (their threads and processes start on first use and, idle, do not hold the process).
   */
  sandbox?: Sandboxes;
  /** Operator metrics; absent in tests that do not look at them. */
  metrics?: Pick<WorkerMetrics, "nodeDuration" | "runsStarted" | "runsFinished">;
}

export type EgressConfigKey =
  "EGRESS_ALLOWLIST" | "EGRESS_TIMEOUT" | "EGRESS_MAX_RESPONSE_BYTES" | "EGRESS_MAX_REDIRECTS";

export const egressGuardFrom = (config: Pick<Config, EgressConfigKey>) =>
  createEgressGuard({
    allowlist: config.EGRESS_ALLOWLIST,
    timeoutMs: config.EGRESS_TIMEOUT,
    maxResponseBytes: config.EGRESS_MAX_RESPONSE_BYTES,
    maxRedirects: config.EGRESS_MAX_REDIRECTS,
  });

/** How often a running node activity heartbeats (the worker sends them on at this pace too). */
export const HEARTBEAT_INTERVAL_MS = 5000;
// A step is recorded as running once it has run this long; a quicker one is recorded once, at
// its end, with its start time: half the writes for most nodes, and the step log still shows
// every node that runs for a noticeable time while it runs.
const STEP_RUNNING_RECORD_DELAY_MS = 250;

const configFailure = (nodeId: string, message: string) => toFailure(new NodeConfigError(nodeId, message));

/** What a step log shows and Temporal carries for an error thrown by a node. */
function toFailure(error: unknown): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  if (error instanceof NodeError) {
    return ApplicationFailure.create({
      message: error.message,
      type: error instanceof NodeConfigError ? error.name : error.retryable ? "NodeError" : "NodeFatalError",
      nonRetryable: !error.retryable,
      details: error.details === undefined ? undefined : [error.details],
    });
  }
  const err = error instanceof Error ? error : new Error(String(error));
  // A database error says what went wrong, not which line of ours called Prisma.
  const databaseReason = databaseErrorReason(err);
  if (databaseReason !== undefined) {
    return ApplicationFailure.create({
      message: `Database error: ${databaseReason}`,
      type: "DatabaseError",
      cause: err,
    });
  }
  // A refused destination or an oversize answer would be met again by the next attempt.
  const final = err instanceof EgressRefusedError || err instanceof EgressLimitError;
  return ApplicationFailure.create({
    message: err.message,
    type: err.name || "Error",
    nonRetryable: final,
    cause: err,
  });
}

const stepErrorOf = (failure: ApplicationFailure): StepError => ({
  message: failure.message,
  type: failure.type ?? undefined,
  retryable: !failure.nonRetryable,
});

/**
 * A step's own record (its start, its failure, the run's end) waits out a database outage within
 * the attempt's time rather than failing the attempt: an outage must not use up a node's
 * attempts (a delay has three) nor turn a node's own error into a database error.
 */
function recordWhenDatabaseAnswers<T>(write: () => Promise<T>): Promise<T> {
  const { info, cancellationSignal } = Context.current();
  const timeoutMs = info.startToCloseTimeoutMs || 60_000;
  // A second to spare for the attempt to answer within its time.
  const deadline = (info.currentAttemptScheduledTimestampMs || Date.now()) + timeoutMs - 1000;
  return whileDatabaseUnavailable(write, { deadline, signal: cancellationSignal });
}

export function createNodeActivities(deps: NodeActivityDeps) {
  const { prisma, clock, nodes } = deps;
  const seal = createJsonSeal(deps.config.SVC_ENCRYPTION_KEY);
  const steps = createStepStore({ prisma, clock, seal });
  const blobs = createBlobStore({ prisma, offloadBytes: deps.config.RUN_OUTPUT_OFFLOAD_BYTES, seal });
  const egress = deps.egress ?? egressGuardFrom(deps.config);
  const models = deps.models ?? createLanguageModels(deps.config);
  const credentials = deps.credentials ?? createCredentialsService(deps);
  const apiKeys = deps.apiKeys ?? createApiKeyStore(deps);
  const sandbox = deps.sandbox ?? createSandboxes(deps.config);

  const definitionOf = (type: string): NodeDefinition => {
    const definition = nodes.get(type);
    if (!definition) throw ApplicationFailure.nonRetryable(`Unknown node type "${type}"`, "NodeConfigError");
    return definition;
  };

  // One per worker: OAuth2 tokens are cached here until shortly before they expire.
  const nodeCredentials =
    deps.nodeCredentials ?? createNodeCredentials({ credentials, apiKeys, fetch: egress.fetch, clock });

  /** Resolves references, renders templates and checks the config against the node's schema. */
  async function prepare(args: NodeActivityInput) {
    const [input, upstream, trigger] = await Promise.all([
      blobs.resolve(args.input),
      blobs.resolve(args.upstream),
      blobs.resolve(args.trigger),
    ]);
    const scope: TemplateScope = {
      input,
      trigger,
      nodes: upstream as Record<string, unknown>,
      run: args.run as unknown as Record<string, unknown>,
    };
    const definition = definitionOf(args.type);
    const literal = literalFields(definition);
    const templated = Object.fromEntries(Object.entries(args.config).filter(([key]) => !literal.has(key)));
    let rendered: unknown;
    try {
      rendered = {
        ...(renderValue(templated, scope) as Record<string, unknown>),
        ...Object.fromEntries(Object.entries(args.config).filter(([key]) => literal.has(key))),
      };
    } catch (error) {
      // The same config on the same data would fail the same way again: not retried.
      if (error instanceof TemplateSyntaxError || error instanceof TemplateLimitError) {
        throw configFailure(args.nodeId, error.message);
      }
      throw error;
    }
    const parsed = definition.config.safeParse(rendered);
    if (!parsed.success) {
      throw configFailure(
        args.nodeId,
        parsed.error.issues.map((i) => `${i.path.join(".") || "config"}: ${i.message}`).join("; "),
      );
    }
    return { input, config: parsed.data as Record<string, unknown> };
  }

  /**
   * The API key of the provider a node's config names: its ai_provider credential when it names
   * one, else the workspace's own, else the server's.
   */
  const apiKeyFor = async (workspaceId: string, config: Record<string, unknown>): Promise<string | undefined> =>
    AI_PROVIDERS.includes(config.provider as AiProvider)
      ? nodeCredentials.aiKey(
          workspaceId,
          config.provider as AiProvider,
          typeof config.credential_id === "string" ? config.credential_id : undefined,
        )
      : undefined;

  function envFor(args: NodeActivityInput, attempt: number, signal: AbortSignal, apiKey?: string): NodeEnv {
    return {
      run: { id: args.runId, flowId: args.flowId, workspaceId: args.workspaceId, nodeId: args.nodeId, attempt },
      signal,
      fetch: egress.fetch,
      sandbox: nodeSandbox(sandbox, args.workspaceId, signal),
      ai: models,
      apiKey,
      credentials: nodeCredentials.forWorkspace(args.workspaceId),
      ...createWorkspaceStores(deps, args.workspaceId),
      // Waits out a database outage within the attempt's time, as the step's own records do: a
      // log entry must not use up the node's attempts (log, debug, code's console).
      async log(level, message, data) {
        const entry = {
          workspaceId: args.workspaceId,
          runId: args.runId,
          nodeId: args.nodeId,
          level,
          message: seal.sealText(String(message).slice(0, 10_000)),
          data: data === undefined ? undefined : jsonColumn(seal.seal(JSON.parse(JSON.stringify(data)))),
        };
        await recordWhenDatabaseAnswers(() => prisma.logEntry.create({ data: entry }));
      },
    };
  }

  /**
   * One attempt of a step: recorded as running if it lasts (never for instant nodes),
   * heartbeating so that a lost worker or a cancellation is noticed, then recorded as succeeded
   * or failed. A local node's success is not written here: the workflow keeps it and hands it to
   * the next write (NodeActivityResult.unwritten), unless it ends the run.
   */
  async function attempt(
    args: NodeActivityInput,
    options: { instant: boolean },
    body: (context: { attempt: number; signal: AbortSignal }) => Promise<NodeActivityResult>,
  ): Promise<NodeActivityResult> {
    const context = Context.current();
    const number = context.info.attempt;
    const local = context.info.isLocal;
    const key = { runId: args.runId, nodeId: args.nodeId, type: args.type };
    const startedAt = clock.now();
    // Rows of earlier local nodes, written like this node's own success: off the critical path.
    if (args.carried?.length) steps.recordLater(steps.successes(args.runId, args.carried));
    let runningRecorded: Promise<unknown> | undefined;
    const recordRunning = options.instant
      ? undefined
      : setTimeout(() => {
          runningRecorded = steps.start(key, number, startedAt).catch((error: unknown) => error);
        }, STEP_RUNNING_RECORD_DELAY_MS);
    // Local activities cannot heartbeat: the worker running them runs the workflow too.
    const heartbeat = local ? undefined : setInterval(() => context.heartbeat(), HEARTBEAT_INTERVAL_MS);
    const settle = async () => {
      clearTimeout(recordRunning);
      clearInterval(heartbeat);
      await runningRecorded;
    };
    const observe = (status: string) =>
      deps.metrics?.nodeDuration.observe(
        { type: args.type, status },
        (clock.now().getTime() - startedAt.getTime()) / 1000,
      );
    try {
      const result = await body({ attempt: number, signal: context.cancellationSignal });
      const output = await blobs.offload(args.runId, args.nodeId, result.output);
      await settle();
      const branch = result.branch === undefined ? {} : { branch: result.branch };
      observe("success");
      const stepOf = (finishedAt: Date) => ({
        attempt: number,
        startedAt: startedAt.toISOString(),
        finishedAt: finishedAt.toISOString(),
      });
      if (local && !args.endsRun) return { output, ...branch, step: stepOf(clock.now()), unwritten: true };
      const stepEnd = steps.success(key, number, startedAt, output, result.branch);
      if (args.endsRun) {
        const { written, ...recorded } = args.endsRun;
        await steps.settled(args.runId);
        const ending = { runId: args.runId, status: "success" as const, output, ...recorded };
        const ended = await recordWhenDatabaseAnswers(() =>
          finalizeRunRecord({ prisma, clock, blobs }, ending, { stepEnd, written }),
        );
        if (!ended) return { output, ...branch };
        deps.metrics?.runsFinished.inc({ status: "success" });
        return { output, ...branch, runEnded: true };
      }
      // The step row is written while Temporal moves on to the next node: the commit is off the
      // run's critical path, and the workflow keeps the record until the run's end confirms it.
      steps.recordLater(stepEnd);
      return { output, ...branch, step: stepOf(stepEnd.finishedAt) };
    } catch (error) {
      const failure = toFailure(error);
      await settle();
      await recordWhenDatabaseAnswers(() => steps.fail(key, number, startedAt, stepErrorOf(failure)));
      observe("failed");
      throw failure;
    }
  }

  /**
   * What a node of an instant or activity handling does, once: the run's attempts (recorded around
   * it) and a node's test run (nothing recorded, `log` collecting its entries) both call it.
   */
  async function behaviour(
    args: NodeActivityInput,
    { attempt: number, signal, log }: { attempt: number; signal: AbortSignal; log?: NodeEnv["log"] },
  ): Promise<{ output: unknown; branch?: string }> {
    const definition = definitionOf(args.type);
    switch (handlingOf(definition)) {
      case "trigger":
        return { output: args.input };
      // Control nodes: the behaviour is the node's own (decide, combine).
      case "condition":
      case "branch": {
        const { config } = await prepare(args);
        return definition.decide!(args.input, config);
      }
      case "merge": {
        const config = definition.config.parse(args.config);
        const byParent = (args.input ?? {}) as Record<string, unknown>;
        return { output: definition.combine!(byParent, args.parents ?? Object.keys(byParent), config) };
      }
      case "activity": {
        const { input, config } = await prepare(args);
        const env = envFor(args, number, signal, await apiKeyFor(args.workspaceId, config));
        const output = await definition.execute!(input, config, log ? { ...env, log } : env);
        return { output: output ?? null };
      }
      default:
        throw ApplicationFailure.nonRetryable(`A ${args.type} node cannot be run alone`, "NodeNotTestable");
    }
  }

  /** An attempt of a node that runs at once: its behaviour, recorded (only an activity node lasts). */
  const run = (handling: NodeHandling) => (args: NodeActivityInput) =>
    attempt(args, { instant: handling !== "activity" }, (context) => behaviour(args, context));

  /**
   * The start of a step that then waits in the workflow (delay, wait, loop, agent): recorded as running,
   * then `body`; a failure is recorded with the attempt before it is thrown.
   */
  async function waitingStep<T>(args: NodeActivityInput, body: (attempt: number) => Promise<T>): Promise<T> {
    const number = Context.current().info.attempt;
    const key = { runId: args.runId, nodeId: args.nodeId, type: args.type };
    const startedAt = clock.now();
    await recordWhenDatabaseAnswers(() => steps.start(key, number, startedAt));
    try {
      return await body(number);
    } catch (error) {
      const failure = toFailure(error);
      await recordWhenDatabaseAnswers(() => steps.fail(key, number, startedAt, stepErrorOf(failure)));
      throw failure;
    }
  }

  /** Starts a delay step: renders its duration; the workflow then sleeps on a durable timer. */
  function delay(args: NodeActivityInput): Promise<DelayStart> {
    return waitingStep(args, async (number) => {
      const { config } = await prepare(args);
      return { attempt: number, durationMs: definitionOf(args.type).waitMs!(config) };
    });
  }

  /**
   * Starts a wait step (core/nodes/wait/wait.start.ts): the wait, recorded; the workflow then
   * waits for its decision (an update) or its timeout.
   */
  function wait(args: NodeActivityInput): Promise<WaitStart> {
    return waitingStep(args, async (number) => {
      const { config } = await prepare(args);
      const start = await startWait({ prisma, clock, seal }, { ...args, attempt: number }, config as WaitConfig);
      return { attempt: number, ...start };
    });
  }

  /** Starts a loop or flow.call step (core/runs/loop-runs.ts): one child run per item, recorded. */
  function loop(args: NodeActivityInput): Promise<LoopStart> {
    return waitingStep(args, async (number) => {
      const { config, input } = await prepare(args);
      const taskQueue = Context.current().info.taskQueue;
      const loopDeps = { prisma, clock, seal, nodes, limits: deps.config, taskQueue };
      const { start, recorded } =
        args.type === flowCallNode.type
          ? await startFlowCall(loopDeps, { ...args, input }, config as FlowCallConfig)
          : await startLoop(loopDeps, args, config as LoopConfig);
      // A repeated attempt finds the children recorded already, events included.
      if (recorded > 0) deps.metrics?.runsStarted.inc({ trigger: start.trigger ?? "loop" }, recorded);
      return { attempt: number, ...start };
    });
  }

  /** Starts an ai.agent step (core/nodes/ai-agent/ai-agent.start.ts): the agent run, recorded. */
  function agent(args: NodeActivityInput): Promise<AgentStart> {
    return waitingStep(args, async (number) => {
      const { config } = await prepare(args);
      const defaults = { provider: deps.config.AI_DEFAULT_PROVIDER, model: deps.config.AI_DEFAULT_MODEL };
      const agent = await startAgent(
        { prisma, clock, seal, defaults, limits: deps.config },
        { ...args, attempt: number },
        config as AiAgentConfig,
      );
      return { attempt: number, agent };
    });
  }

  /**
   * A test run of one node (core/contracts/node-test.ts): its config rendered against the sample
   * input and checked, then its behaviour once; nothing recorded, its log entries collected.
   */
  async function testNode(test: NodeTestInput): Promise<NodeTestResult> {
    const startedAt = clock.now();
    const logs: NodeTestLogEntry[] = [];
    let dropped = 0;
    const args: NodeActivityInput = {
      runId: test.testId,
      workspaceId: test.workspaceId,
      flowId: test.flowId ?? "",
      nodeId: test.nodeId,
      type: test.type,
      handling: handlingOf(definitionOf(test.type)),
      config: test.config,
      input: test.input,
      upstream: {},
      trigger: test.input,
      run: { id: test.testId, flow_id: test.flowId ?? "", version: 0, started_at: startedAt.toISOString() },
    };
    const ended = (result: Pick<NodeTestResult, "status" | "output" | "branch" | "error">): NodeTestResult => ({
      ...result,
      logs: dropped > 0 ? [...logs, { level: "warn", message: `${dropped} more log entries left out` }] : logs,
      duration_ms: Math.max(0, clock.now().getTime() - startedAt.getTime()),
    });
    try {
      const result = await behaviour(args, {
        attempt: 1,
        signal: Context.current().cancellationSignal,
        log: async (level, message, data) => {
          if (logs.length >= NODE_TEST_MAX_LOGS) dropped++;
          else logs.push({ level, message: String(message).slice(0, 10_000), ...(data === undefined ? {} : { data }) });
        },
      });
      return ended({ status: "success", output: result.output ?? null, branch: result.branch ?? null, error: null });
    } catch (error) {
      const failure = toFailure(error);
      return ended({
        status: "failed",
        output: null,
        branch: null,
        error: { message: failure.message, type: failure.type ?? null },
      });
    }
  }

  const perType: Record<string, (args: NodeActivityInput) => Promise<unknown>> = {};
  for (const type of nodes.types()) {
    const handling = handlingOf(definitionOf(type));
    perType[type] =
      handling === "delay"
        ? delay
        : handling === "wait"
          ? wait
          : handling === "loop"
            ? loop
            : handling === "agent"
              ? agent
              : run(handling);
  }

  return {
    ...perType,
    testNode,

    /** Writes the rows of local nodes' successes (see NodeActivityResult.unwritten). */
    async recordSteps(input: RecordStepsInput): Promise<void> {
      await steps.record(steps.successes(input.runId, input.steps));
    },

    /** Records a node's failure as handled per its on_error, on its last attempt's row. */
    async recordHandledFailure(input: RecordHandledFailureInput): Promise<void> {
      await steps.handled(input);
    },

    /** Ends a step that waited in the workflow (delay, loop); returns the output as it travels. */
    async completeStep(input: CompleteStepInput): Promise<unknown> {
      const output = await blobs.offload(input.runId, input.nodeId, input.output);
      await steps.complete({ runId: input.runId, nodeId: input.nodeId }, input.attempt, output);
      return output;
    },

    /**
     * Closes a wait (decided, expired) and ends its step with the node's output or error; returns
     * the output as it travels (a reference when large).
     */
    async finishWait(input: FinishWaitInput): Promise<unknown> {
      if (input.step.status !== "success") {
        await finishWaitRecord({ prisma, clock, seal }, input);
        return null;
      }
      const output = await blobs.offload(input.runId, input.nodeId, input.step.output);
      await finishWaitRecord({ prisma, clock, seal }, { ...input, step: { ...input.step, output } });
      return output;
    },

    /** Ends the run once; returns its output as it travels (a reference when large). */
    async finalizeRun(input: FinalizeRunInput): Promise<unknown> {
      if (await finalizeRunRecord({ prisma, clock, blobs }, input))
        deps.metrics?.runsFinished.inc({ status: input.status });
      if (input.status !== "success") {
        const reason = `Not run: its parent run ${input.runId} ended (${input.status}) first`;
        await cancelChildRuns({ prisma, clock, blobs }, input.runId, reason);
      }
      return blobs.offload(input.runId, "$run", input.output ?? null);
    },

    /** A loop's items it will not start (an item failed, or the run is being cancelled), ended as cancelled. */
    async cancelUnstartedRuns(input: CancelUnstartedRunsInput): Promise<void> {
      await cancelChildRuns({ prisma, clock, blobs }, input.runId, input.reason, input.runIds);
    },
  };
}

/** The activities the runFlow workflow calls besides the per-type ones. */
export interface RunActivities {
  recordSteps(input: RecordStepsInput): Promise<void>;
  recordHandledFailure(input: RecordHandledFailureInput): Promise<void>;
  completeStep(input: CompleteStepInput): Promise<unknown>;
  finalizeRun(input: FinalizeRunInput): Promise<unknown>;
  cancelUnstartedRuns(input: CancelUnstartedRunsInput): Promise<void>;
  delay(input: NodeActivityInput): Promise<DelayStart>;
  wait(input: NodeActivityInput): Promise<WaitStart>;
  finishWait(input: FinishWaitInput): Promise<unknown>;
  loop(input: NodeActivityInput): Promise<LoopStart>;
}

/** The activity of a node's test run (worker/workflows/node-test.workflow.ts). */
export interface NodeTestActivities {
  testNode(input: NodeTestInput): Promise<NodeTestResult>;
}

/** Every node-type activity has this shape. */
export type NodeActivity = (input: NodeActivityInput) => Promise<NodeActivityResult>;
