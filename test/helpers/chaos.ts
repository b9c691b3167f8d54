// What the chaos tests and `npm run bench:chaos` / `bench:sandbox` share (no vitest here, the
// benchmarks import it too): a loopback receiver that applies each Idempotency-Key once, the mixed
// flow they run, a worker process killed again and again, the tally of runs, step rows and calls at
// the end, a hostile neighbour's flows and their tally, and a poller of an endpoint's answer times.
import type { PrismaClient } from "../../lib/db.js";
import { sleep } from "../../scripts/infra/process.js";
import { startLoopbackServer } from "./loopback-server.js";
import { spawnEntry, type Spawned } from "./processes.js";

/**
 * A third party that honours idempotency keys, as the http_request node expects: each key's
 * effect is applied once, a repeated key is answered as the first time. Every keyed call is
 * counted; a call without a key is refused (400).
 */
export async function startIdempotentReceiver() {
  const calls = new Map<string, number>();
  const effects = new Map<string, number>();
  const server = await startLoopbackServer((req, res) => {
    const key = req.headers["idempotency-key"];
    req.resume();
    req.on("end", () => {
      if (typeof key !== "string") {
        res.writeHead(400).end();
        return;
      }
      calls.set(key, (calls.get(key) ?? 0) + 1);
      if (!effects.has(key)) effects.set(key, 1);
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ ok: true }));
    });
  });
  return {
    url: server.url,
    /** Calls received, by key (retried deliveries included). */
    calls,
    /** Effects applied, by key: 1 each, however often the key came. */
    effects,
    close: () => server.close(),
  };
}
export type IdempotentReceiver = Awaited<ReturnType<typeof startIdempotentReceiver>>;

/**
 * Quick (local) nodes around a regular one and a durable timer: a set, an http_request to the
 * receiver, a set of its answer, a delay, a set that ends the run. With `lead`, a delay (its
 * duration may be a template of the input) comes first, so that runs reach the call at
 * different times.
 */
export function mixedFlow(receiverUrl: string, { delay = "1s", lead }: { delay?: string; lead?: string } = {}) {
  const nodes = [
    { id: "start", type: "manual" },
    { id: "shape", type: "set", config: { fields: { order: "{{ input.n }}" } } },
    ...(lead ? [{ id: "lead", type: "delay", config: { duration: lead } }] : []),
    {
      id: "call",
      type: "http_request",
      config: { method: "POST", url: `${receiverUrl}/orders`, body: "{{ input }}" },
      // A lost attempt (its worker killed) is retried after this, not after the type's 5 minutes;
      // and a call may be lost more than once in a row.
      timeout_ms: 8000,
      retry: { max_attempts: 20, max_interval_ms: 2000 },
    },
    { id: "pick", type: "set", config: { fields: { status: "{{ input.status }}", order: "{{ nodes.shape.order }}" } } },
    { id: "nap", type: "delay", config: { duration: delay } },
    { id: "done", type: "set", config: { fields: { done: true } } },
  ];
  return {
    nodes,
    edges: nodes.slice(1).map((node, i) => ({ from: nodes[i]!.id, to: node.id })),
  };
}

export interface ChaosTally {
  runs: number;
  /** Runs whose status is not success, with it. */
  unfinished: Array<{ runId: string; status: string }>;
  /** (run, node) pairs without a successful step row. */
  missing: string[];
  /** (run, node) pairs with more than one successful step row. */
  doubled: string[];
  /** Calls the receiver got in all (retried deliveries included). */
  calls: number;
  /** Keys received more often than the call node had attempts (each attempt calls at most once). */
  unexplainedRepeats: string[];
  /** Effects applied more than once, or for no run of ours, or runs whose call never arrived. */
  duplicateEffects: string[];
  lostCalls: string[];
  /** Runs recorded as not successful although every node of theirs succeeded. */
  misrecorded: string[];
}

/** What the runs left behind: their status, one success row per node, one effect per call. */
export async function tallyChaos(
  prisma: PrismaClient,
  runIds: string[],
  receiver: IdempotentReceiver,
  flow: { nodes: Array<{ id: string }> },
  callNode = "call",
): Promise<ChaosTally> {
  const nodeIds = flow.nodes.map((node) => node.id);
  const runs = await prisma.run.findMany({ where: { id: { in: runIds } }, select: { id: true, status: true } });
  const statusOf = new Map(runs.map((run) => [run.id, run.status as string]));
  const steps = await prisma.runStep.findMany({
    where: { runId: { in: runIds }, status: "success" },
    select: { runId: true, nodeId: true, attempt: true },
  });
  const successes = new Map<string, number[]>();
  for (const step of steps) {
    const key = `${step.runId}:${step.nodeId}`;
    successes.set(key, [...(successes.get(key) ?? []), step.attempt]);
  }
  const tally: ChaosTally = {
    runs: runIds.length,
    unfinished: runIds
      .filter((id) => statusOf.get(id) !== "success")
      .map((runId) => ({ runId, status: statusOf.get(runId) ?? "absent" })),
    missing: [],
    doubled: [],
    calls: [...receiver.calls.values()].reduce((a, b) => a + b, 0),
    unexplainedRepeats: [],
    duplicateEffects: [],
    lostCalls: [],
    misrecorded: [],
  };
  for (const runId of runIds) {
    for (const nodeId of nodeIds) {
      const attempts = successes.get(`${runId}:${nodeId}`) ?? [];
      if (attempts.length === 0) tally.missing.push(`${runId}:${nodeId}`);
      if (attempts.length > 1) tally.doubled.push(`${runId}:${nodeId} (attempts ${attempts.join(", ")})`);
    }
    const status = statusOf.get(runId);
    if (status !== "success" && status !== "running" && nodeIds.every((id) => successes.has(`${runId}:${id}`))) {
      tally.misrecorded.push(`${runId} (${status ?? "absent"})`);
    }
    const key = `${runId}:${callNode}`;
    const calls = receiver.calls.get(key) ?? 0;
    if (calls === 0) tally.lostCalls.push(key);
    const attempts = Math.max(0, ...(successes.get(key) ?? []));
    if (calls > attempts) tally.unexplainedRepeats.push(`${key} (${calls} calls, ${attempts} attempts)`);
  }
  const expected = new Set(runIds.map((runId) => `${runId}:${callNode}`));
  for (const [key, count] of receiver.effects) {
    if (count !== 1 || !expected.has(key)) tally.duplicateEffects.push(`${key} (${count})`);
  }
  return tally;
}

/** What `faultsOf` gives when the runs came through whole. */
export const NO_FAULTS = {
  unfinished: [],
  missing: [],
  doubled: [],
  lostCalls: [],
  unexplainedRepeats: [],
  duplicateEffects: [],
  misrecorded: [],
};

/** The faults of a tally, empty when the runs came through whole. */
export const faultsOf = (tally: ChaosTally) => ({
  unfinished: tally.unfinished,
  missing: tally.missing,
  doubled: tally.doubled,
  lostCalls: tally.lostCalls,
  unexplainedRepeats: tally.unexplainedRepeats,
  duplicateEffects: tally.duplicateEffects,
  misrecorded: tally.misrecorded,
});

/**
 * Worker processes (`npm run worker`) with `env`, one at a time: `start` spawns one and waits
 * for it to log that it started; `kill` kills the current one with SIGKILL and waits for its end.
 */
export function workerProcesses(env: NodeJS.ProcessEnv) {
  let current: Spawned | undefined;
  const all: Spawned[] = [];
  return {
    async start(timeoutMs = 120_000): Promise<Spawned> {
      const worker = spawnEntry("worker/main.ts", [], env);
      current = worker;
      all.push(worker);
      await worker.waitForOutput(/worker started/, timeoutMs);
      return worker;
    },
    async kill(): Promise<void> {
      const worker = current;
      current = undefined;
      if (!worker || worker.child.exitCode !== null || worker.child.signalCode !== null) return;
      worker.child.kill("SIGKILL");
      await worker.exited;
    },
    /** Kills whatever is still running (cleanup). */
    async stopAll(): Promise<void> {
      for (const worker of all) {
        if (worker.child.exitCode === null && worker.child.signalCode === null) {
          worker.child.kill("SIGKILL");
          await worker.exited;
        }
      }
    },
  };
}

/**
 * While `busy()` holds, at most `maxKills` times: lets the current worker live `aliveMs`, kills
 * it (SIGKILL) and starts a new one. Returns the number of kills.
 */
export async function killWorkerRepeatedly(
  workers: ReturnType<typeof workerProcesses>,
  { aliveMs, maxKills, busy }: { aliveMs: () => number; maxKills: number; busy: () => Promise<boolean> },
): Promise<number> {
  let kills = 0;
  while (kills < maxKills) {
    await sleep(aliveMs());
    if (!(await busy())) break;
    await workers.kill();
    kills++;
    await workers.start();
  }
  return kills;
}

/** Runs of `runIds` not yet ended, counted in the database. */
export async function runningCount(prisma: PrismaClient, runIds: string[]): Promise<number> {
  return prisma.run.count({ where: { id: { in: runIds }, status: "running" } });
}

/** What a client that does as it is told saw of one keyed request. */
export interface KeyedCall {
  /** Every run id any answer named: one, when keys hold. */
  runIds: Set<string>;
  /** Answers 5xx or broken connections before the request was accepted. */
  refusals: number;
  /** Each 5xx answer's code and Retry-After ("broken" for a broken connection). */
  refused: Array<{ code: string; retryAfter: string | null }>;
  accepted: boolean;
}

/** Runs `work` over `items`, `lanes` of them at a time; `finished()` counts those done so far. */
export function inLanes<T>(items: readonly T[], lanes: number, work: (item: T) => Promise<void>) {
  let next = 0;
  let finished = 0;
  const all = Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < items.length) {
        await work(items[next++]!);
        finished++;
      }
    }),
  );
  return { all, finished: () => finished };
}

/**
 * Sends a POST with an Idempotency-Key to `url` until it is accepted (2xx), repeating the same
 * request with the same key after a broken connection or a 5xx (waiting its Retry-After, else
 * half a second), as a well-behaved client does; at most `attempts` times.
 */
export async function callWithKey(
  url: string,
  key: string,
  body: unknown,
  { headers = {}, attempts = 60 }: { headers?: Record<string, string>; attempts?: number } = {},
): Promise<KeyedCall> {
  const call: KeyedCall = { runIds: new Set(), refusals: 0, refused: [], accepted: false };
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const res = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": key, ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    }).catch(() => undefined);
    const answer = res ? ((await res.json().catch(() => ({}))) as { run_id?: string; code?: string }) : {};
    if (answer.run_id) call.runIds.add(answer.run_id);
    if (res && res.status >= 200 && res.status < 300) {
      call.accepted = true;
      return call;
    }
    if (res && res.status < 500) throw new Error(`${key}: ${res.status} ${JSON.stringify(answer)}`);
    call.refusals++;
    call.refused.push({ code: answer.code ?? "broken", retryAfter: res?.headers.get("retry-after") ?? null });
    await sleep(Math.min(Number(res?.headers.get("retry-after") ?? 0.5), 10) * 1000);
  }
  return call;
}

/** The runaway JSONata: an endless tail recursion, which only the time limit stops. */
export const ENDLESS_JSONATA = "($f := function($n){ $f($n+1) }; $f(0))";

/** A hostile neighbour's flow: a manual start, then one transform recursing until `timeLimitMs`. */
export function recursingTransformFlow(timeLimitMs = 10_000) {
  return {
    nodes: [
      { id: "start", type: "manual" },
      { id: "spin", type: "transform", config: { expression: ENDLESS_JSONATA, time_limit_ms: timeLimitMs } },
    ],
    edges: [{ from: "start", to: "spin" }],
  };
}

/** What runs that are meant to fail at one node (a hostile neighbour's) left behind. */
export interface FailingRunsTally {
  runs: number;
  /** Runs still running. */
  unfinished: string[];
  /** Runs without a step row of the node. */
  missing: string[];
  /** Runs with more than one row of the node (an attempt beyond the first: a retry). */
  doubled: string[];
  /** Runs that ended otherwise than failed at their node's one failed attempt. */
  misrecorded: string[];
}

/** Each run of `runIds` ended failed, with exactly one failed step row of `nodeId`, its first attempt. */
export async function tallyFailingRuns(
  prisma: PrismaClient,
  runIds: string[],
  nodeId: string,
): Promise<FailingRunsTally> {
  const runs = await prisma.run.findMany({ where: { id: { in: runIds } }, select: { id: true, status: true } });
  const steps = await prisma.runStep.findMany({
    where: { runId: { in: runIds }, nodeId },
    select: { runId: true, attempt: true, status: true },
  });
  const tally: FailingRunsTally = { runs: runIds.length, unfinished: [], missing: [], doubled: [], misrecorded: [] };
  for (const runId of runIds) {
    const status = runs.find((run) => run.id === runId)?.status ?? "absent";
    const rows = steps.filter((step) => step.runId === runId);
    if (status === "running") tally.unfinished.push(runId);
    if (rows.length === 0) tally.missing.push(runId);
    if (rows.length > 1) tally.doubled.push(`${runId} (attempts ${rows.map((row) => row.attempt).join(", ")})`);
    const failedOnce = rows.length === 1 && rows[0]!.attempt === 1 && rows[0]!.status === "failed";
    if (status !== "running" && (status !== "failed" || !failedOnce)) tally.misrecorded.push(`${runId} (${status})`);
  }
  return tally;
}

/**
 * Polls `url` every `intervalMs` until stopped (at most 10,000 times), each request bounded by
 * 30 s; stop() gives each answer's time in ms and how many requests failed or answered non-2xx.
 */
export function pollLatency(url: string, intervalMs = 100) {
  const times: number[] = [];
  let failures = 0;
  let polling = true;
  const done = (async () => {
    for (let i = 0; polling && i < 10_000; i++) {
      const started = performance.now();
      const ok = await fetch(url, { signal: AbortSignal.timeout(30_000) })
        .then(async (res) => (await res.arrayBuffer(), res.ok))
        .catch(() => false);
      times.push(performance.now() - started);
      if (!ok) failures++;
      await sleep(intervalMs);
    }
  })();
  return async () => {
    polling = false;
    await done;
    return { times, failures, max: Math.max(0, ...times) };
  };
}
