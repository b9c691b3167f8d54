// The worker's JavaScript sandbox: a pool of worker threads running QuickJS (js-sandbox.thread.ts),
// so that user code never runs on the event loop that heartbeats and polls for the worker.
//
// - Time: QuickJS interrupts code at its time limit; a thread still busy at the limit plus
//   KILL_GRACE_MS (code QuickJS cannot interrupt, e.g. `for (;;) bigArray.join()`) is terminated
//   and replaced, and the evaluation fails with the same time-limit failure.
// - Memory: QuickJS's WebAssembly memory is capped at the code's limit; each thread's own heap
//   (input, result, console) is capped by its resourceLimits, and running out of it is the code's
//   memory failure too.
// - Fairness: a workspace holds at most half the threads (rounded up), and waiting evaluations
//   are served round-robin across workspaces (fair-queue.ts): while one workspace floods the pool,
//   another's evaluation starts at once on a thread the flood cannot take, and a waiting
//   evaluation is behind at most one evaluation of each other workspace, never a whole flood.
// - Threads start on demand (a killed one is replaced as soon as work waits), up to the pool's
//   size, and do not keep the process alive while idle; close() ends them all and fails what
//   still runs or waits (an internal failure, which the activity retries on another worker).
import { Worker } from "node:worker_threads";
import { FairQueue } from "./fair-queue.js";
import {
  inputJsonOf,
  JsSandboxError,
  memoryLimitMessage,
  noOutput,
  timeLimitMessage,
  type JsSandboxLimits,
  type JsSandboxResult,
} from "./js-sandbox.contract.js";
import type { ThreadReply, ThreadTask } from "./js-sandbox.thread.js";

/** How long past the code's limit a thread may take to answer before it is terminated. */
export const KILL_GRACE_MS = 1000;
/** Each thread's V8 heap: input and result as JSON, console lines (the code's memory is QuickJS's). */
const THREAD_HEAP_MB = 256;

export interface JsSandboxPoolOptions {
  /** Threads at most (CODE_SANDBOX_THREADS). */
  threads: number;
  killGraceMs?: number;
  /** Old-generation heap of each thread, in MB. */
  threadHeapMb?: number;
}

export interface JsSandboxRequest {
  code: string;
  input: unknown;
  limits: JsSandboxLimits;
  /** Whose evaluation it is: a workspace gets at most half the threads. */
  workspaceId: string;
  /** Aborting gives up the evaluation: it leaves the queue, or its thread is terminated. */
  signal?: AbortSignal;
}

export interface JsSandboxPoolStats {
  /** Thread ids of the threads alive (starting, idle or busy). */
  threads: number[];
  busy: number;
  waiting: number;
  /** Threads terminated because their evaluation outlasted its limit or was given up. */
  killed: number;
}

export interface JsSandboxPool {
  /** Runs the code in a sandbox thread; fails with a JsSandboxError (or the signal's reason). */
  run(request: JsSandboxRequest): Promise<JsSandboxResult>;
  stats(): JsSandboxPoolStats;
  /** Terminates every thread; evaluations still running or waiting fail as internal failures. */
  close(): Promise<void>;
}

interface Job {
  request: JsSandboxRequest;
  inputJson: string;
  resolve(result: JsSandboxResult): void;
  reject(error: unknown): void;
  stopListening(): void;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  job?: Job;
  killTimer?: NodeJS.Timeout;
  /** Resolves with the exit code once the thread has exited. */
  exited: Promise<number>;
}

const internal = (message: string) =>
  new JsSandboxError("internal", `The JavaScript sandbox failed: ${message}`, noOutput());

/**
 * The thread's entry. Under TypeScript (tsx, vitest) the thread has no loader for .ts files, so
 * it starts from a small module that registers tsx's and then imports the entry.
 */
function threadEntry(): URL {
  if (!import.meta.url.endsWith(".ts")) return new URL("./js-sandbox.thread.js", import.meta.url);
  const entry = new URL("./js-sandbox.thread.ts", import.meta.url).href;
  const tsx = import.meta.resolve("tsx/esm/api");
  const source = `import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(entry)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(source)}`);
}

export function createJsSandboxPool(options: JsSandboxPoolOptions): JsSandboxPool {
  const size = Math.max(1, Math.floor(options.threads));
  const perWorkspace = Math.ceil(size / 2);
  const killGraceMs = options.killGraceMs ?? KILL_GRACE_MS;
  const heapMb = options.threadHeapMb ?? THREAD_HEAP_MB;
  const entry = threadEntry();
  /** Threads in service (starting, idle or busy). */
  const threads = new Set<Thread>();
  /** Every thread not yet exited, those being terminated included. */
  const alive = new Set<Thread>();
  const queue = new FairQueue<Job>();
  const busyByWorkspace = new Map<string, number>();
  let killed = 0;
  let closed = false;

  const busyOf = (workspaceId: string) => busyByWorkspace.get(workspaceId) ?? 0;
  const mayStart = (workspaceId: string) => busyOf(workspaceId) < perWorkspace;

  function spawn(): void {
    const worker = new Worker(entry, {
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 32 },
    });
    const thread: Thread = { worker, ready: false, exited: new Promise((resolve) => worker.once("exit", resolve)) };
    threads.add(thread);
    alive.add(thread);
    worker.on("message", (reply: ThreadReply) => onReply(thread, reply));
    worker.on("error", (error: Error & { code?: string }) => {
      if (!threads.has(thread)) return;
      const job = thread.job;
      const started = thread.ready;
      retire(thread);
      if (job) {
        job.reject(
          error.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? new JsSandboxError("memory_limit", memoryLimitMessage(job.request.limits), noOutput())
            : internal(error.message),
        );
      }
      // A thread that cannot start would fail again at once: what waits fails now (internal,
      // retried by its activity) rather than spawning threads in a loop.
      if (!started)
        for (const waiting of queue.drain()) waiting.reject(internal(`no sandbox thread: ${error.message}`));
      dispatch();
    });
    void thread.exited.then((code) => {
      alive.delete(thread);
      if (!threads.has(thread)) return;
      const job = thread.job;
      retire(thread);
      job?.reject(internal(`its thread exited (code ${String(code)})`));
      dispatch();
    });
  }

  /** Forgets a thread (its job, if any, is the caller's to settle). */
  function retire(thread: Thread): void {
    threads.delete(thread);
    clearTimeout(thread.killTimer);
    if (thread.job) {
      release(thread.job);
      thread.job = undefined;
    }
  }

  function release(job: Job): void {
    const { workspaceId } = job.request;
    const busy = busyOf(workspaceId) - 1;
    if (busy > 0) busyByWorkspace.set(workspaceId, busy);
    else busyByWorkspace.delete(workspaceId);
    job.stopListening();
  }

  /** Terminates a busy thread and fails its evaluation with `error`; dispatch() starts another for what waits. */
  function kill(thread: Thread, error: unknown): void {
    const job = thread.job;
    retire(thread);
    killed += 1;
    void thread.worker.terminate();
    job?.reject(error);
    dispatch();
  }

  function onReply(thread: Thread, reply: ThreadReply): void {
    if (!threads.has(thread)) return;
    if (reply.type === "ready") {
      thread.ready = true;
      dispatch();
      return;
    }
    const job = thread.job;
    if (!job) return;
    clearTimeout(thread.killTimer);
    release(job);
    thread.job = undefined;
    if (reply.type === "result") job.resolve({ value: reply.value, ...reply.output });
    else job.reject(new JsSandboxError(reply.failure, reply.message, reply.output));
    dispatch();
  }

  function start(thread: Thread, job: Job): void {
    const { workspaceId, limits } = job.request;
    thread.job = job;
    busyByWorkspace.set(workspaceId, busyOf(workspaceId) + 1);
    thread.worker.ref();
    thread.killTimer = setTimeout(
      () => kill(thread, new JsSandboxError("time_limit", timeLimitMessage(limits), noOutput())),
      limits.timeLimitMs + killGraceMs,
    );
    const task: ThreadTask = { code: job.request.code, inputJson: job.inputJson, limits };
    thread.worker.postMessage(task);
  }

  /** Gives idle threads the next evaluations in fair order, and starts threads that waiting work can use. */
  function dispatch(): void {
    if (closed) return;
    for (const thread of threads) {
      if (!thread.ready || thread.job) continue;
      const next = queue.take(mayStart);
      if (!next) break;
      start(thread, next.item);
    }
    let startable = 0;
    for (const [workspaceId, waiting] of queue.counts()) {
      startable += Math.min(waiting, Math.max(0, perWorkspace - busyOf(workspaceId)));
    }
    let free = 0;
    for (const thread of threads) if (!thread.job) free += 1;
    for (let missing = Math.min(startable - free, size - threads.size); missing > 0; missing -= 1) spawn();
    // Idle threads do not keep the process alive; starting and busy ones do, as pending work does.
    for (const thread of threads) if (thread.ready && !thread.job) thread.worker.unref();
  }

  return {
    run(request) {
      if (closed) return Promise.reject(internal("the sandbox is shut down"));
      const { signal } = request;
      if (signal?.aborted) return Promise.reject(signal.reason);
      let inputJson: string;
      try {
        inputJson = inputJsonOf(request.input);
      } catch (error) {
        return Promise.reject(error);
      }
      return new Promise<JsSandboxResult>((resolve, reject) => {
        const onAbort = () => {
          if (queue.remove(request.workspaceId, job)) job.reject(signal!.reason);
          else for (const thread of threads) if (thread.job === job) kill(thread, signal!.reason);
        };
        let settled = false;
        const job: Job = {
          request,
          inputJson,
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
        queue.push(request.workspaceId, job);
        dispatch();
      });
    },

    stats() {
      let busy = 0;
      for (const thread of threads) if (thread.job) busy += 1;
      return { threads: [...threads].map((t) => t.worker.threadId), busy, waiting: queue.size, killed };
    },

    async close() {
      closed = true;
      const shutDown = () => internal("the sandbox was shut down (the worker is stopping)");
      for (const job of queue.drain()) job.reject(shutDown());
      for (const thread of [...threads]) {
        const job = thread.job;
        retire(thread);
        job?.reject(shutDown());
      }
      // Killed threads may still be on their way out: wait for those too.
      const ending = [...alive];
      for (const thread of ending) void thread.worker.terminate();
      await Promise.all(ending.map((thread) => thread.exited));
    },
  };
}
