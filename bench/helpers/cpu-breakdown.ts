// Where a service process's CPU goes, by part: each thread's CPU seconds from /proc over the
// measured windows, and the main and workflow threads' seconds split by their V8 CPU profiles'
// samples in the same windows (sample counts, not wall-clock deltas: a thread the machine
// descheduled while busy would otherwise count the time it waited).
import path from "node:path";
import { projectRoot } from "../../scripts/infra/paths.js";
import {
  countSamples,
  monotonicMicros,
  readProfiles,
  type CodeOwner,
  type CpuProfile,
  type TimeWindow,
} from "./cpu-profile.js";
import { markdownTable } from "./markdown-table.js";
import { readThreadRegistry, threadCpuMeter, type ThreadCpu } from "./thread-cpu.js";

/**
 * Samples every 5 ms: at V8's default of 1 ms the profiler cost the API about a fifth more CPU
 * (it wakes every thread it samples, idle or not, and its own thread processes each tick).
 */
const SAMPLE_INTERVAL_US = 5000;

/**
 * Flags and environment that make a service process write what the breakdown reads into `dir`:
 * its thread ids, and with `profiler` its V8 CPU profiles.
 */
export function breakdownProcessOptions(
  dir: string,
  { profiler }: { profiler: boolean },
): { nodeFlags: string[]; env: Record<string, string> } {
  const profile = ["--cpu-prof", `--cpu-prof-dir=${path.resolve(dir)}`, `--cpu-prof-interval=${SAMPLE_INTERVAL_US}`];
  return {
    nodeFlags: [
      ...(profiler ? profile : []),
      "--require",
      path.join(projectRoot, "bench", "helpers", "thread-registry.cjs"),
    ],
    env: { BENCH_THREAD_LOG: threadLogPath(dir) },
  };
}

const threadLogPath = (dir: string) => path.resolve(dir, "threads.log");

export interface BreakdownMeter {
  begin(): void;
  end(): void;
  windows: TimeWindow[];
  threadCpu(): ThreadCpu;
}

/** Measures a process's CPU by thread, and the time windows its profile is read in, between begin() and end(). */
export function breakdownMeter(pid: number): BreakdownMeter {
  const threads = threadCpuMeter(pid);
  const windows: TimeWindow[] = [];
  let start = 0;
  return {
    begin() {
      threads.begin();
      start = monotonicMicros();
    },
    end() {
      windows.push({ start, end: monotonicMicros() });
      threads.end();
    },
    windows,
    threadCpu: threads.used,
  };
}

const MAIN_PARTS: Partial<Record<CodeOwner, string>> = {
  ours: "main thread: our code (api/ core/ worker/ lib/)",
  codec: "main thread: payload codec (with the protobuf and AES it calls)",
  temporal: "main thread: Temporal SDK's JavaScript (@temporalio/*, rxjs, protobufjs)",
  prisma: "main thread: Prisma (client, query compiler)",
  pg: "main thread: pg (driver)",
  packages: "main thread: other packages",
  node: "main thread: Node's own JavaScript (http, net, streams, timers)",
  gc: "main thread: garbage collection",
  native: "main thread: native, no JavaScript on the stack",
};
const WORKFLOW_PARTS: Partial<Record<CodeOwner, string>> = {
  "workflow bundle": "workflow thread: workflow bundle (runFlow, @temporalio/workflow)",
  temporal: "workflow thread: SDK's thread side (activations in and out)",
  gc: "workflow thread: garbage collection",
};
const OTHER_WORKFLOW_PART = "workflow thread: Node and native";
/**
 * vm's runInContext in itself: with a timeout (the SDK's isolateExecutionTimeout) each call starts
 * and joins a watchdog thread. Its samples include the wait for that thread, which is not CPU:
 * the "busy by its samples" line below the table shows how much the thread's samples overstate it.
 */
const VM_ENTRY_PART = "workflow thread: vm.runInContext itself (a watchdog thread per call)";

export const THREAD_PARTS = {
  rustCore: "Temporal SDK's Rust core (its threads)",
  profiler: "V8's profiler thread (this measurement's own cost)",
  v8: "V8's helper threads (GC, compiler)",
  pool: "libuv's pool and other native threads",
  otherJs: "other JavaScript threads (sandboxes, loader)",
  ended: "threads that ended in the window",
} as const;

export interface Breakdown {
  /** CPU seconds by part, in display order. */
  parts: Map<string, number>;
  /** CPU seconds of the largest parts, finer: by file, package, module or function (DETAILS). */
  details: Map<string, Map<string, number>>;
  /** Per profiled thread: its CPU seconds, and the seconds its samples say it was not idle. */
  sampled: Map<string, { cpu: number; busy: number }>;
}

/** The finer views the breakdown keeps: a title, then which samples of which thread, keyed how. */
const DETAILS = {
  ours: "main thread, our code by file",
  temporal: "main thread, the Temporal SDK's JavaScript by module",
  packages: "main thread, other packages",
  mainFunctions: "main thread, by function",
  workflowFunctions: "workflow thread, by function",
} as const;

const add = (parts: Map<string, number>, part: string, seconds: number) =>
  parts.set(part, (parts.get(part) ?? 0) + seconds);

/** Splits a thread's CPU seconds by its profile's samples in `windows`; undefined without samples. */
function splitByProfile(seconds: number, profile: CpuProfile | undefined, windows: TimeWindow[]) {
  if (!profile) return undefined;
  const counted = countSamples(profile, windows, projectRoot);
  if (counted.total === 0) return undefined;
  const share = (count: number) => (seconds * count) / counted.total;
  // The share of the windows' time the samples found the thread busy (running, or blocked in a native call).
  const windowSeconds = windows.reduce((sum, window) => sum + (window.end - window.start), 0) / 1e6;
  const busy = (windowSeconds * counted.total) / (counted.total + counted.idle);
  return { counted, share, busy };
}

/** The names the Temporal SDK's Rust core gives its threads (tokio's workers, workflow processing, ...). */
const RUST_CORE_THREADS = /^(tokio-|workflow-proces|temporal-)/;

/** The part of each thread of `pid`, by its name, the registry and its profile. */
function threadPart(tid: number, name: string, pid: number, registry: ReturnType<typeof readThreadRegistry>) {
  if (tid === pid) return "main";
  const worker = registry.workers.get(tid);
  if (worker) return worker;
  if (registry.early.has(tid)) return THREAD_PARTS.v8;
  if (RUST_CORE_THREADS.test(name)) return THREAD_PARTS.rustCore;
  if (name === "v8:ProfEvntProc") return THREAD_PARTS.profiler;
  return name === "node" ? THREAD_PARTS.pool : `native threads "${name}"`;
}

/** A process's CPU seconds by part over a meter's windows, once the process has written its profiles (it stopped). */
export function readBreakdown(meter: BreakdownMeter, source: { pid: number; dir: string }): Breakdown {
  const { pid, dir } = source;
  const registry = readThreadRegistry(threadLogPath(dir), pid);
  const profiles = readProfiles(dir, pid);
  const { threads, processSeconds } = meter.threadCpu();
  const parts = new Map<string, number>();
  const details = new Map<string, Map<string, number>>(Object.values(DETAILS).map((title) => [title, new Map()]));
  const sampled = new Map<string, { cpu: number; busy: number }>();
  let counted = 0;
  for (const [tid, { name, seconds }] of threads) {
    counted += seconds;
    const part = threadPart(tid, name, pid, registry);
    if (typeof part === "string" && part !== "main") {
      add(parts, part, seconds);
      continue;
    }
    if (typeof part !== "string" && !part.workflow) {
      add(parts, THREAD_PARTS.otherJs, seconds);
      continue;
    }
    const split = splitByProfile(seconds, profiles.get(part === "main" ? 0 : part.threadId), meter.windows);
    if (split) sampled.set(part === "main" ? "main thread" : "workflow thread", { cpu: seconds, busy: split.busy });
    if (part === "main") splitMainThread(parts, details, seconds, split);
    else splitWorkflowThread(parts, details, seconds, split);
  }
  add(parts, THREAD_PARTS.ended, Math.max(0, processSeconds - counted));
  return { parts, details, sampled };
}

function splitMainThread(
  parts: Map<string, number>,
  details: Breakdown["details"],
  seconds: number,
  split: ReturnType<typeof splitByProfile>,
) {
  if (!split) return add(parts, "main thread (no profile)", seconds);
  for (const owner of Object.keys(MAIN_PARTS) as CodeOwner[]) {
    add(parts, MAIN_PARTS[owner]!, split.share(split.counted.byOwner.get(owner) ?? 0));
  }
  for (const [key, count] of split.counted.byDetail) {
    const [owner, detail] = key.split("|") as [CodeOwner, string];
    const title = DETAILS[owner as keyof typeof DETAILS];
    if (title) add(details.get(title)!, detail, split.share(count));
  }
  for (const [name, count] of split.counted.byFunction)
    add(details.get(DETAILS.mainFunctions)!, name, split.share(count));
}

function splitWorkflowThread(
  parts: Map<string, number>,
  details: Breakdown["details"],
  seconds: number,
  split: ReturnType<typeof splitByProfile>,
) {
  if (!split) return add(parts, "workflow thread (no profile)", seconds);
  for (const [name, count] of split.counted.byFunction) {
    add(details.get(DETAILS.workflowFunctions)!, name, split.share(count));
  }
  for (const part of [...Object.values(WORKFLOW_PARTS), VM_ENTRY_PART, OTHER_WORKFLOW_PART]) add(parts, part, 0);
  // The SDK calls it: its samples are taken out of the SDK's row into a row of their own.
  const vmEntry = split.counted.byFunction.get("runInContext") ?? 0;
  add(parts, VM_ENTRY_PART, split.share(vmEntry));
  for (const [owner, count] of split.counted.byOwner) {
    add(
      parts,
      WORKFLOW_PARTS[owner] ?? OTHER_WORKFLOW_PART,
      split.share(owner === "temporal" ? count - vmEntry : count),
    );
  }
}

/** The brief's groups of a breakdown: each row's group, so the table can say what the rows add up to. */
const GROUPS: [string, (part: string) => boolean][] = [
  ["our code", (part) => part === MAIN_PARTS.ours],
  ["payload codec", (part) => part === MAIN_PARTS.codec],
  ["database client (Prisma, pg)", (part) => part === MAIN_PARTS.prisma || part === MAIN_PARTS.pg],
  [
    "Temporal SDK (JavaScript, workflow thread, Rust core)",
    (part) => part === MAIN_PARTS.temporal || part.startsWith("workflow thread") || part === THREAD_PARTS.rustCore,
  ],
  ["V8 (GC, helper threads)", (part) => part === MAIN_PARTS.gc || part === THREAD_PARTS.v8],
];

export interface BreakdownColumn {
  title: string;
  breakdown: Breakdown;
  /** Requests (or runs) the CPU is divided by. */
  requests: number;
}

export const perRequestMs = (seconds: number, requests: number) => ((seconds * 1000) / requests).toFixed(2);

/** The table: one row per part, one column per breakdown (ms per request), then the groups and the total. */
export function breakdownTable(columns: BreakdownColumn[]): string {
  const order = [...Object.values(MAIN_PARTS), ...Object.values(WORKFLOW_PARTS), VM_ENTRY_PART, OTHER_WORKFLOW_PART];
  const rank = (part: string) => (order.includes(part) ? order.indexOf(part) : order.length);
  const partNames = [...new Set(columns.flatMap(({ breakdown }) => [...breakdown.parts.keys()]))].sort(
    (a, b) => rank(a) - rank(b),
  );
  const cells = (seconds: (breakdown: Breakdown) => number) =>
    columns.map(({ breakdown, requests }) => perRequestMs(seconds(breakdown), requests));
  const sum = (breakdown: Breakdown, keep: (part: string) => boolean) =>
    [...breakdown.parts].filter(([part]) => keep(part)).reduce((total, [, seconds]) => total + seconds, 0);
  const rows = [
    ...partNames.map((part) => [part, ...cells((breakdown) => breakdown.parts.get(part) ?? 0)]),
    ...GROUPS.filter(([, keep]) => partNames.some(keep)).map(([group, keep]) => [
      `= ${group}`,
      ...cells((breakdown) => sum(breakdown, keep)),
    ]),
    ["= the process in all", ...cells((breakdown) => sum(breakdown, () => true))],
  ];
  return markdownTable(["part (ms of CPU per request)", ...columns.map(({ title }) => title)], rows);
}

/** "name ms, ..." of the `count` largest entries, in ms per request. */
export function topText(seconds: Map<string, number>, requests: number, count = 8): string {
  return [...seconds]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, used]) => `${name} ${perRequestMs(used, requests)}`)
    .join(", ");
}
