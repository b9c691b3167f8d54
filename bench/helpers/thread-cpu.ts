// CPU seconds by thread of a process, from /proc/<pid>/task/<tid>/stat, summed over the windows
// a benchmark measures; and which JavaScript thread each OS thread is (thread-registry.cjs).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { statTicks } from "./process-cpu.js";

/** Each live thread of `pid`: its name (comm) and CPU ticks so far. */
function readThreads(pid: number): Map<number, { name: string; ticks: number }> {
  const threads = new Map<number, { name: string; ticks: number }>();
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      threads.set(Number(task), { name, ticks: statTicks(stat) });
    } catch {
      // the thread ended
    }
  }
  return threads;
}

export interface ThreadCpu {
  /** CPU seconds by OS thread id, with the thread's name. */
  threads: Map<number, { name: string; seconds: number }>;
  /** The whole process's CPU seconds, threads that ended within a window included. */
  processSeconds: number;
}

/** Sums a process's CPU by thread over the windows between each `begin()` and `end()`. */
export function threadCpuMeter(pid: number) {
  const used: ThreadCpu = { threads: new Map(), processSeconds: 0 };
  let before: { threads: Map<number, { name: string; ticks: number }>; process: number } | undefined;
  const processTicks = () => statTicks(readFileSync(`/proc/${pid}/stat`, "utf8"));
  return {
    begin() {
      before = { threads: readThreads(pid), process: processTicks() };
    },
    end() {
      if (!before) return;
      const after = readThreads(pid);
      for (const [tid, { name, ticks }] of after) {
        const total = used.threads.get(tid) ?? { name, seconds: 0 };
        total.seconds += (ticks - (before.threads.get(tid)?.ticks ?? 0)) / 100;
        used.threads.set(tid, total);
      }
      used.processSeconds += (processTicks() - before.process) / 100;
      before = undefined;
    },
    used: () => used,
  };
}

export interface ThreadRegistry {
  /** JavaScript worker threads by OS thread id: Node thread id, and whether it is Temporal's workflow thread. */
  workers: Map<number, { threadId: number; workflow: boolean }>;
  /** Threads running before the main thread's JavaScript started: V8's platform workers. */
  early: Set<number>;
}

/** What thread-registry.cjs wrote about `pid` into `file`. */
export function readThreadRegistry(file: string, pid: number): ThreadRegistry {
  const registry: ThreadRegistry = { workers: new Map(), early: new Set() };
  if (!existsSync(file)) return registry;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const [linePid, threadId, ...rest] = line.split(" ");
    if (Number(linePid) !== pid) continue;
    if (threadId === "early") for (const tid of rest) registry.early.add(Number(tid));
    else if (rest[1] !== "main")
      registry.workers.set(Number(rest[0]), { threadId: Number(threadId), workflow: rest[1] === "workflow" });
  }
  return registry;
}
