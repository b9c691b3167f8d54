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
import type { Config } from "../../lib/config.js";
import { FairQueue } from "./fair-queue.js";
import {
  inputJsonOf,
  JsSandboxError,
  memoryLimitMessage,
  noOutput,
  timeLimitMessage,
  type EvaluationSubject,
  type JsonataEvaluation,
  type JsSandboxLimits,
  type JsSandboxOutput,
  type JsSandboxResult,
  type NodeSandbox,
  type SandboxReply,
} from "./js-sandbox.contract.js";
import type { ThreadTask } from "./js-sandbox.thread.js";
import type { JsonataTask } from "./jsonata-evaluation.js";
import { processExecutors, threadExecutors, type Executor, type ExecutorFactory } from "./sandbox-executors.js";

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

/** Whose evaluation it is, and when to give it up. */
interface EvaluationOwner {
  /** Whose evaluation it is: a workspace gets at most half the executors. */
  workspaceId: string;
  /** Aborting gives up the evaluation: it leaves the queue, or its executor is terminated. */
  signal?: AbortSignal;
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

export interface JsSandboxPoolStats {
  /** Ids of the executors alive (starting, idle or busy): thread ids, or process ids. */
  threads: number[];
  busy: number;
  waiting: number;
  /** Executors terminated because their evaluation outlasted its limit or was given up. */
  killed: number;
}

interface PoolControl {
  stats(): JsSandboxPoolStats;
  /** Terminates every executor; evaluations still running or waiting fail as internal failures. */
  close(): Promise<void>;
}

export interface JsSandboxPool extends PoolControl {
  /** Runs the code on a sandbox thread; fails with a JsSandboxError (or the signal's reason). */
  run(request: JsSandboxRequest): Promise<JsSandboxResult>;
}

export interface ExpressionPool extends PoolControl {
  /** Evaluates the expression in a sandbox process; resolves to its result as plain JSON. */
  run(request: JsonataRequest): Promise<unknown>;
}

/** One evaluation of a pool whose executors take `Task` and answer `Result`. */
interface Submission<Task> extends EvaluationOwner {
  task: Task;
  /** Its time limit (the kill timer) and memory limit (the failure when its executor runs out). */
  limits: JsSandboxLimits;
  subject: EvaluationSubject;
}

interface Job<Task, Result> extends Submission<Task> {
  resolve(result: Result): void;
  reject(error: unknown): void;
  stopListening(): void;
}

interface Slot<Task, Result> {
  executor: Executor;
  ready: boolean;
  job?: Job<Task, Result>;
  killTimer?: NodeJS.Timeout;
}

interface PoolCore<Task, Result> extends PoolControl {
  /** The input as JSON for a new evaluation; throws when the pool is shut down or the signal aborted. */
  admit(input: unknown, signal: AbortSignal | undefined): string;
  /** Queues an evaluation; settles with its executor's result, or with its failure. */
  submit(submission: Submission<Task>): Promise<Result>;
}

/** The queue, fairness, kill timers and replacement shared by both pools. */
function createPoolCore<Task, Result extends object>(options: {
  size: number;
  killGraceMs: number;
  executors: ExecutorFactory;
  /** How its internal failures name it ("JavaScript sandbox"). */
  name: string;
}): PoolCore<Task, Result> {
  type PoolJob = Job<Task, Result>;
  type PoolSlot = Slot<Task, Result>;
  const size = Math.max(1, Math.floor(options.size));
  const perWorkspace = Math.ceil(size / 2);
  const { killGraceMs } = options;
  /** Executors in service (starting, idle or busy). */
  const slots = new Set<PoolSlot>();
  /** Every executor not yet exited, those being terminated included. */
  const alive = new Set<PoolSlot>();
  const queue = new FairQueue<PoolJob>();
  const busyByWorkspace = new Map<string, number>();
  let killed = 0;
  let closed = false;

  const internal = (message: string) =>
    new JsSandboxError("internal", `The ${options.name} failed: ${message}`, noOutput());
  const busyOf = (workspaceId: string) => busyByWorkspace.get(workspaceId) ?? 0;
  const mayStart = (workspaceId: string) => busyOf(workspaceId) < perWorkspace;

  function spawn(): void {
    const slot = { ready: false } as PoolSlot;
    slot.executor = options.executors({
      message: (reply) => onReply(slot, reply as SandboxReply<Result>),
      ended: ({ outOfMemory, reason }) => onEnd(slot, outOfMemory, reason),
    });
    slots.add(slot);
    alive.add(slot);
    void slot.executor.exited.then(() => alive.delete(slot));
  }

  /** Its executor ended (ran out of memory, crashed, exited or was terminated). */
  function onEnd(slot: PoolSlot, outOfMemory: boolean, reason: string): void {
    if (!slots.has(slot)) return;
    const job = slot.job;
    const started = slot.ready;
    retire(slot);
    if (job) {
      job.reject(
        outOfMemory
          ? new JsSandboxError("memory_limit", memoryLimitMessage(job.limits, job.subject), noOutput())
          : internal(reason),
      );
    }
    // An executor that cannot start would fail again at once: what waits fails now (internal,
    // retried by its activity) rather than spawning executors in a loop.
    if (!started) for (const waiting of queue.drain()) waiting.reject(internal(`no sandbox executor: ${reason}`));
    dispatch();
  }

  /** Forgets an executor (its job, if any, is the caller's to settle). */
  function retire(slot: PoolSlot): void {
    slots.delete(slot);
    clearTimeout(slot.killTimer);
    if (slot.job) {
      release(slot.job);
      slot.job = undefined;
    }
  }

  function release(job: PoolJob): void {
    const { workspaceId } = job;
    const busy = busyOf(workspaceId) - 1;
    if (busy > 0) busyByWorkspace.set(workspaceId, busy);
    else busyByWorkspace.delete(workspaceId);
    job.stopListening();
  }

  /** Terminates a busy executor and fails its evaluation with `error`; dispatch() starts another for what waits. */
  function kill(slot: PoolSlot, error: unknown): void {
    const job = slot.job;
    retire(slot);
    killed += 1;
    slot.executor.terminate();
    job?.reject(error);
    dispatch();
  }

  function onReply(slot: PoolSlot, reply: SandboxReply<Result>): void {
    if (!slots.has(slot)) return;
    if (reply.type === "ready") {
      slot.ready = true;
      dispatch();
      return;
    }
    const job = slot.job;
    if (!job) return;
    clearTimeout(slot.killTimer);
    release(job);
    slot.job = undefined;
    if (reply.type === "failure") {
      job.reject(new JsSandboxError(reply.failure, reply.message, reply.output, reply.details));
    } else {
      const { type: _type, ...result } = reply;
      job.resolve(result as unknown as Result);
    }
    dispatch();
  }

  function start(slot: PoolSlot, job: PoolJob): void {
    const { workspaceId, limits } = job;
    slot.job = job;
    busyByWorkspace.set(workspaceId, busyOf(workspaceId) + 1);
    slot.executor.ref();
    slot.killTimer = setTimeout(
      () => kill(slot, new JsSandboxError("time_limit", timeLimitMessage(limits, job.subject), noOutput())),
      limits.timeLimitMs + killGraceMs,
    );
    slot.executor.post(job.task);
  }

  /** Gives idle executors the next evaluations in fair order, and starts executors that waiting work can use. */
  function dispatch(): void {
    if (closed) return;
    for (const slot of slots) {
      if (!slot.ready || slot.job) continue;
      const next = queue.take(mayStart);
      if (!next) break;
      start(slot, next.item);
    }
    let startable = 0;
    for (const [workspaceId, waiting] of queue.counts()) {
      startable += Math.min(waiting, Math.max(0, perWorkspace - busyOf(workspaceId)));
    }
    let free = 0;
    for (const slot of slots) if (!slot.job) free += 1;
    for (let missing = Math.min(startable - free, size - slots.size); missing > 0; missing -= 1) spawn();
    // Idle executors do not keep the process alive; starting and busy ones do, as pending work does.
    for (const slot of slots) if (slot.ready && !slot.job) slot.executor.unref();
  }

  return {
    admit(input, signal) {
      if (closed) throw internal("the sandbox is shut down");
      if (signal?.aborted) throw signal.reason;
      return inputJsonOf(input);
    },

    submit(submission) {
      const { signal, workspaceId } = submission;
      return new Promise<Result>((resolve, reject) => {
        const onAbort = () => {
          if (queue.remove(workspaceId, job)) job.reject(signal!.reason);
          else for (const slot of slots) if (slot.job === job) kill(slot, signal!.reason);
        };
        let settled = false;
        const job: PoolJob = {
          ...submission,
          resolve(result) {
            if (settled) return;
            settled = true;
            resolve(result);
          },
          reject(error) {
            if (settled) return;
            settled = true;
            job.stopListening();
            reject(error);
          },
          stopListening: () => signal?.removeEventListener("abort", onAbort),
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        queue.push(workspaceId, job);
        dispatch();
      });
    },

    stats() {
      let busy = 0;
      for (const slot of slots) if (slot.job) busy += 1;
      return { threads: [...slots].map((slot) => slot.executor.id), busy, waiting: queue.size, killed };
    },

    async close() {
      closed = true;
      const shutDown = () => internal("the sandbox was shut down (the worker is stopping)");
      for (const job of queue.drain()) job.reject(shutDown());
      for (const slot of [...slots]) {
        const job = slot.job;
        retire(slot);
        job?.reject(shutDown());
      }
      // Killed executors may still be on their way out: wait for those too.
      const ending = [...alive];
      for (const slot of ending) slot.executor.terminate();
      await Promise.all(ending.map((slot) => slot.executor.exited));
    },
  };
}

/** The code node's pool: QuickJS on worker threads (js-sandbox.thread.ts). */
export function createJsSandboxPool(options: JsSandboxPoolOptions): JsSandboxPool {
  const heapMb = options.threadHeapMb ?? THREAD_HEAP_MB;
  const pool = createPoolCore<ThreadTask, { value: unknown; output: JsSandboxOutput }>({
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
  const pool = createPoolCore<JsonataTask, { json: string }>({
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
  };
}
