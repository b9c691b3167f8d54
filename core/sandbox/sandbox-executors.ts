// Where the sandbox pool (js-sandbox-pool.ts) runs evaluations: worker threads or child processes.
//
// - A thread suits QuickJS (the code node): the code's memory is WebAssembly memory, capped inside
//   the engine, and the thread's own V8 heap only ever holds the input and the result.
// - A process suits JSONata (the transform node), which runs on V8 itself: a thread's heap limit
//   (resourceLimits) is best-effort, and one large allocation near it (`$pad("", 4e8)`, a range
//   of ten million items) aborts the whole process instead of the thread (nodejs/node#47224). A
//   child process's limit (--max-old-space-size) holds: V8 aborts the child alone, and the pool
//   reads that from its exit and its last words on stderr.
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

/** How an executor ended, told once: the pool fails its evaluation with it, if it had one. */
export interface ExecutorEnd {
  /** It ran out of its heap: the evaluation's memory failure. */
  outOfMemory: boolean;
  /** Why, for an internal failure. */
  reason: string;
}

export interface ExecutorEvents {
  message(reply: unknown): void;
  ended(end: ExecutorEnd): void;
}

/** One thread or process of a pool, running one evaluation at a time. */
export interface Executor {
  readonly id: number;
  post(task: unknown): void;
  /** Busy: keeps the process alive. Idle: does not. */
  ref(): void;
  unref(): void;
  /** Ends it at once, whatever it runs. */
  terminate(): void;
  /** Settles once it has exited. */
  readonly exited: Promise<void>;
}

export type ExecutorFactory = (events: ExecutorEvents) => Executor;

/**
 * A module as a thread or a child process starts it: the compiled .js beside it, or under
 * TypeScript (tsx, vitest) the .ts file with tsx's loader registered first.
 */
function entryOf(base: URL, name: string): { url: URL; typescript: boolean } {
  const typescript = base.href.endsWith(".ts");
  return { url: new URL(`./${name}.${typescript ? "ts" : "js"}`, base), typescript };
}

/**
 * Threads of `name` (a module beside this one), each with a V8 heap of `heapMb`. Under
 * TypeScript the thread has no loader for .ts files, so it starts from a small module that
 * registers tsx's and then imports the entry.
 */
export function threadExecutors(name: string, heapMb: number): ExecutorFactory {
  const entry = entryOf(new URL(import.meta.url), name);
  let url = entry.url;
  if (entry.typescript) {
    const tsx = import.meta.resolve("tsx/esm/api");
    const source = `import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(entry.url.href)});`;
    url = new URL(`data:text/javascript,${encodeURIComponent(source)}`);
  }
  return (events) => {
    const worker = new Worker(url, {
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 32 },
    });
    let ended = false;
    const end = (outOfMemory: boolean, reason: string) => {
      if (ended) return;
      ended = true;
      events.ended({ outOfMemory, reason });
    };
    worker.on("message", events.message);
    worker.on("error", (error: Error & { code?: string }) =>
      end(error.code === "ERR_WORKER_OUT_OF_MEMORY", error.message),
    );
    const exited = new Promise<void>((resolve) =>
      worker.once("exit", (code) => {
        end(false, `its thread exited (code ${String(code)})`);
        resolve();
      }),
    );
    return {
      id: worker.threadId,
      post: (task) => worker.postMessage(task),
      ref: () => worker.ref(),
      unref: () => worker.unref(),
      terminate: () => void worker.terminate(),
      exited,
    };
  };
}

// V8's words when it aborts for want of heap ("FATAL ERROR: Reached heap limit Allocation failed -
// JavaScript heap out of memory", "... CALL_AND_RETRY_LAST Allocation failed ...").
const OUT_OF_MEMORY = /heap out of memory|Allocation failed/;
/** What is kept of a child's stderr: enough for its last words. */
const STDERR_KEPT_CHARS = 4000;

/** Keeps or lets go of the process's event loop for a child, its IPC channel and its stderr. */
function holdChild(child: ChildProcess, hold: boolean): void {
  const parts = [child, child.channel, child.stderr] as Array<{ ref?(): void; unref?(): void } | null | undefined>;
  for (const part of parts) (hold ? part?.ref : part?.unref)?.call(part);
}

/**
 * Child processes of `name` (a module beside this one), each with a V8 heap of `heapMb`. They get
 * no environment but the time zone (no secret of ours is in reach of what they evaluate) and end
 * when this process goes (their IPC channel closes; jsonata.process.ts watches for it).
 */
export function processExecutors(name: string, heapMb: number): ExecutorFactory {
  const entry = entryOf(new URL(import.meta.url), name);
  const loader = entry.typescript ? ["--import", import.meta.resolve("tsx")] : [];
  const path = fileURLToPath(entry.url);
  return (events) => {
    const child = fork(path, [], {
      execArgv: [...loader, `--max-old-space-size=${heapMb}`],
      // Only the time zone, which JSONata's date functions read, as this process has it.
      env: process.env.TZ ? { TZ: process.env.TZ } : {},
      serialization: "advanced",
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    let stderr = "";
    let ended = false;
    const end = (outOfMemory: boolean, reason: string) => {
      if (ended) return;
      ended = true;
      events.ended({ outOfMemory, reason });
    };
    child.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-STDERR_KEPT_CHARS)));
    child.on("message", events.message);
    const exited = new Promise<void>((resolve) => {
      child.once("close", (code, signal) => {
        const lastWords = stderr.trim().split("\n").at(-1) ?? "";
        const how = signal ? `signal ${signal}` : `code ${String(code)}`;
        end(OUT_OF_MEMORY.test(stderr), `its process exited (${how})${lastWords ? `: ${lastWords}` : ""}`);
        resolve();
      });
      // A child that could not be spawned (it will not close), or whose channel broke.
      child.on("error", (error) => {
        end(false, error.message);
        if (child.pid === undefined) resolve();
      });
    });
    return {
      id: child.pid ?? -1,
      post: (task) => child.send(task as object),
      ref: () => holdChild(child, true),
      unref: () => holdChild(child, false),
      terminate: () => void child.kill("SIGKILL"),
      exited,
    };
  };
}
