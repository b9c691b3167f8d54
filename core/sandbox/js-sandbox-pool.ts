// The worker's sandboxes: pools of executors that run user code (QuickJS on worker threads, the
// code node) and user expressions (JSONata in child processes, the transform node), so that neither
// ever runs on the event loop that heartbeats and polls for the worker, or serves the API (npm
// start's in-process worker). Both pools follow the same rules, from the same code:
//
// - Time: QuickJS interrupts code at its time limit, JSONata checks it at every step; an executor
//   still busy at the limit plus KILL_GRACE_MS (a long built-in call, e.g. `for (;;)
//   bigArray.join()` or a backtracking regular expression) is terminated and replaced, and the
//   evaluation fails with the same time-limit failure.
// - Memory: QuickJS's WebAssembly memory is capped at the code's limit; each thread's own heap
//   (input, result, console) is capped by its resourceLimits, and running out of it is the code's
//   memory failure too. A JSONata evaluation's memory is its process's heap (sandbox-executors.ts
//   says why a process); running out of it is its memory failure.
// - Fairness: a workspace holds at most half the executors (rounded up), and waiting evaluations
//   are served round-robin across workspaces (fair-queue.ts): while one workspace floods the pool,
//   another's evaluation starts at once on an executor the flood cannot take, and a waiting
//   evaluation is behind at most one evaluation of each other workspace, never a whole flood.
// - Executors start on demand (a killed one is replaced as soon as work waits), up to the pool's
//   size, stay warm and do not keep the process alive while idle; close() ends them all and fails
//   what still runs or waits (an internal failure, which the activity retries on another worker).
//
// The shared part is executor-pool.ts; this file sizes the two pools and speaks their tasks.
import type { Config } from "../../lib/config.js";
import { ExecutorPool, type EvaluationOwner, type PoolControl } from "./executor-pool.js";
import {
  JsSandboxError,
  noOutput,
  type JsonataEvaluation,
  type JsSandboxLimits,
  type JsSandboxOutput,
  type JsSandboxResult,
  type NodeSandbox,
} from "./js-sandbox.contract.js";
import type { ThreadTask } from "./js-sandbox.thread.js";
import type { EachJson, JsonataTask } from "./jsonata-evaluation.js";
import { processExecutors, threadExecutors } from "./sandbox-executors.js";

export type { JsSandboxPoolStats } from "./executor-pool.js";

/** How long past the evaluation's limit an executor may take to answer before it is terminated. */
export const KILL_GRACE_MS = 1000;
/** Each thread's V8 heap: input and result as JSON, console lines (the code's memory is QuickJS's). */
const THREAD_HEAP_MB = 256;
/** Each expression process's V8 heap: a JSONata evaluation's memory limit. */
const EXPRESSION_HEAP_MB = 256;
const MB = 1024 * 1024;

export interface JsSandboxPoolOptions {
  /** Threads at most (CODE_SANDBOX_THREADS). */
  threads: number;
  killGraceMs?: number;
  /** Old-generation heap of each thread, in MB. */
  threadHeapMb?: number;
}

export interface ExpressionPoolOptions {
  /** Processes at most (EXPRESSION_SANDBOX_PROCESSES). */
  processes: number;
  killGraceMs?: number;
  /** Old-generation heap of each process, in MB: the memory limit of an evaluation. */
  heapMb?: number;
}

export interface JsSandboxRequest extends EvaluationOwner {
  code: string;
  input: unknown;
  limits: JsSandboxLimits;
}

export interface JsonataRequest extends EvaluationOwner, JsonataEvaluation {
  expression: string;
  input: unknown;
}

export interface JsSandboxPool extends PoolControl {
  /** Runs the code on a sandbox thread; fails with a JsSandboxError (or the signal's reason). */
  run(request: JsSandboxRequest): Promise<JsSandboxResult>;
}

export interface ExpressionPool extends PoolControl {
  /** Evaluates the expression in a sandbox process; resolves to its result as plain JSON. */
  run(request: JsonataRequest): Promise<unknown>;
  /** Evaluates it on each input in one sandbox process (NodeSandbox.evaluateJsonataEach). */
  runEach(
    request: Omit<JsonataRequest, "input"> & { inputs: unknown[]; firstIndex: number },
  ): Promise<Array<{ value: unknown } | { error: JsSandboxError }>>;
}

/**
 * What a chunk of items may hold a process for: each item's limit, for the chunk at most this.
 * An item past its own limit fails alone; a chunk past this one is killed and run item by item.
 */
const EACH_MAX_TIME_LIMIT_MS = 30_000;

/** The code node's pool: QuickJS on worker threads (js-sandbox.thread.ts). */
export function createJsSandboxPool(options: JsSandboxPoolOptions): JsSandboxPool {
  const heapMb = options.threadHeapMb ?? THREAD_HEAP_MB;
  const pool = new ExecutorPool<ThreadTask, { value: unknown; output: JsSandboxOutput }>({
    size: options.threads,
    killGraceMs: options.killGraceMs ?? KILL_GRACE_MS,
    executors: threadExecutors("js-sandbox.thread", heapMb),
    name: "JavaScript sandbox",
  });
  return {
    async run({ code, input, limits, workspaceId, signal }) {
      const task: ThreadTask = { code, inputJson: pool.admit(input, signal), limits };
      const { value, output } = await pool.submit({ task, limits, subject: "code", workspaceId, signal });
      return { value, ...output };
    },
    stats: () => pool.stats(),
    close: () => pool.close(),
  };
}

/** The transform node's pool: JSONata in child processes (jsonata.process.ts). */
export function createExpressionPool(options: ExpressionPoolOptions): ExpressionPool {
  const heapMb = options.heapMb ?? EXPRESSION_HEAP_MB;
  const pool = new ExecutorPool<JsonataTask, { json: string }>({
    size: options.processes,
    killGraceMs: options.killGraceMs ?? KILL_GRACE_MS,
    executors: processExecutors("jsonata.process", heapMb),
    name: "expression sandbox",
  });
  return {
    async run({ expression, input, timeLimitMs, bindings, workspaceId, signal }) {
      const task: JsonataTask = { expression, inputJson: pool.admit(input, signal), bindings, timeLimitMs };
      const limits = { timeLimitMs, memoryLimitBytes: heapMb * MB };
      const { json } = await pool.submit({ task, limits, subject: "expression", workspaceId, signal });
      return JSON.parse(json);
    },
    async runEach({ expression, inputs, firstIndex, timeLimitMs, bindings, workspaceId, signal }) {
      const task: JsonataTask = {
        expression,
        inputJson: pool.admit(inputs, signal),
        bindings,
        timeLimitMs,
        each: { firstIndex },
      };
      const chunkLimitMs = Math.min(EACH_MAX_TIME_LIMIT_MS, timeLimitMs * Math.max(1, inputs.length));
      const limits = { timeLimitMs: chunkLimitMs, memoryLimitBytes: heapMb * MB };
      let json: string;
      try {
        ({ json } = await pool.submit({ task, limits, subject: "expression", workspaceId, signal }));
      } catch (error) {
        // A chunk that held its process too long (or took its heap): each item alone, with its own limit.
        if (!(error instanceof JsSandboxError) || inputs.length === 1) throw error;
        if (error.failure !== "time_limit" && error.failure !== "memory_limit") throw error;
        return eachAlone(inputs, (input, index) =>
          this.run({
            expression,
            input,
            timeLimitMs,
            bindings: { ...bindings, item_index: firstIndex + index },
            workspaceId,
            signal,
          }),
        );
      }
      return (JSON.parse(json) as EachJson[]).map((outcome) =>
        "value" in outcome
          ? { value: outcome.value }
          : { error: new JsSandboxError(outcome.failure, outcome.message, noOutput(), outcome.details) },
      );
    },
    stats: () => pool.stats(),
    close: () => pool.close(),
  };
}

/** The sandboxes a runtime has: code on threads, expressions in processes. */
export interface Sandboxes {
  code: JsSandboxPool;
  expressions: ExpressionPool;
  /** Closes both pools. */
  close(): Promise<void>;
}

/** One process's sandboxes, sized by its config; executors start on first use. */
export function createSandboxes(
  config: Pick<Config, "CODE_SANDBOX_THREADS" | "EXPRESSION_SANDBOX_PROCESSES">,
): Sandboxes {
  const code = createJsSandboxPool({ threads: config.CODE_SANDBOX_THREADS });
  const expressions = createExpressionPool({ processes: config.EXPRESSION_SANDBOX_PROCESSES });
  return {
    code,
    expressions,
    close: async () => void (await Promise.all([code.close(), expressions.close()])),
  };
}

/** What a node of `workspaceId` gets as env.sandbox: the pools' evaluations, given up when `signal` aborts. */
export function nodeSandbox(
  pools: Pick<Sandboxes, "code" | "expressions">,
  workspaceId: string,
  signal?: AbortSignal,
): NodeSandbox {
  return {
    runJavaScript: (code, input, limits) => pools.code.run({ code, input, limits, workspaceId, signal }),
    evaluateJsonata: (expression, input, evaluation) =>
      pools.expressions.run({ expression, input, ...evaluation, workspaceId, signal }),
    evaluateJsonataEach: (expression, inputs, evaluation) =>
      pools.expressions.runEach({ expression, inputs, ...evaluation, workspaceId, signal }),
  };
}

/** Each input evaluated alone, one after another: its value, or its sandbox failure. */
async function eachAlone(
  inputs: unknown[],
  evaluate: (input: unknown, index: number) => Promise<unknown>,
): Promise<Array<{ value: unknown } | { error: JsSandboxError }>> {
  const outcomes: Array<{ value: unknown } | { error: JsSandboxError }> = [];
  for (const [index, input] of inputs.entries()) {
    try {
      outcomes.push({ value: await evaluate(input, index) });
    } catch (error) {
      if (!(error instanceof JsSandboxError)) throw error;
      outcomes.push({ error });
    }
  }
  return outcomes;
}
