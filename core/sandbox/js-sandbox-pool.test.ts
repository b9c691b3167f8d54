import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { JsSandboxError, type JsSandboxLimits } from "./js-sandbox.contract.js";
import {
  createExpressionPool,
  createJsSandboxPool,
  type ExpressionPool,
  type JsonataRequest,
  type JsSandboxPool,
  type JsSandboxRequest,
} from "./js-sandbox-pool.js";

const MB = 1024 * 1024;
const limits: JsSandboxLimits = { timeLimitMs: 300, memoryLimitBytes: 32 * MB };
// QuickJS checks its deadline every few thousand branches and calls; each join here takes long
// enough (a second or so) that its interrupt never comes: only the pool's kill stops it.
const UNINTERRUPTIBLE = "const a = new Array(2e6).fill(12345.678); for (;;) a.join(',');";
const BIG = { timeLimitMs: 200, memoryLimitBytes: 128 * MB };
// Busy for `ms`, then answers when it started and ended (QuickJS's Date.now() is the host's clock).
const busyFor = (ms: number) =>
  `const start = Date.now(); while (Date.now() < start + ${ms}); return [start, Date.now()];`;

const pools: Array<JsSandboxPool | ExpressionPool> = [];
function poolOf(threads: number, options: { killGraceMs?: number; threadHeapMb?: number } = {}) {
  const pool = createJsSandboxPool({ threads, ...options });
  pools.push(pool);
  return pool;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

const request = (workspaceId: string, code: string, more: Partial<JsSandboxRequest> = {}): JsSandboxRequest => ({
  code,
  input: null,
  limits,
  workspaceId,
  ...more,
});

async function failureOf(promise: Promise<unknown>): Promise<JsSandboxError> {
  const error = await promise.then(
    (result) => new Error(`expected a failure, got ${JSON.stringify(result)}`),
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(JsSandboxError);
  return error as JsSandboxError;
}

/** Starts `count` threads (one evaluation of a workspace of its own each), so that what follows finds them ready. */
async function warmUp(pool: JsSandboxPool, count: number) {
  await Promise.all(Array.from({ length: count }, (_, i) => pool.run(request(`ws_warm_${i}`, "return 0"))));
  expect(pool.stats().threads).toHaveLength(count);
}

/** Waits (at most 20 s) until the pool's stats satisfy `ready`. */
async function until(
  pool: Pick<JsSandboxPool, "stats">,
  ready: (stats: ReturnType<JsSandboxPool["stats"]>) => boolean,
) {
  for (let i = 0; i < 400 && !ready(pool.stats()); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(ready(pool.stats()), JSON.stringify(pool.stats())).toBe(true);
}

describe("the JavaScript sandbox pool", () => {
  it("runs code on a thread, leaving the caller's event loop free meanwhile", async () => {
    const pool = poolOf(1);
    let ticks = 0;
    const ticking = setInterval(() => (ticks += 1), 20);
    try {
      const result = await pool.run(
        request("ws_a", `console.log("hi", input.n); ${busyFor(400)}`, {
          input: { n: 1 },
          limits: { ...limits, timeLimitMs: 5000 },
        }),
      );
      expect(result.console).toEqual([{ level: "log", message: "hi 1" }]);
      const [start, end] = result.value as [number, number];
      expect(end - start).toBeGreaterThanOrEqual(400);
    } finally {
      clearInterval(ticking);
    }
    // On the caller's thread the timer could not have fired once while the code was busy.
    expect(ticks).toBeGreaterThan(0);
  });

  it("fails for(;;){} at its time limit through QuickJS's interrupt; the same thread serves the next", async () => {
    const pool = poolOf(1);
    const error = await failureOf(pool.run(request("ws_a", "for (;;) {}")));
    expect({ failure: error.failure, message: error.message }).toEqual({
      failure: "time_limit",
      message: "The code exceeded its time limit of 300 ms",
    });
    const [thread] = pool.stats().threads;
    await expect(pool.run(request("ws_a", "return 42"))).resolves.toMatchObject({ value: 42 });
    expect(pool.stats()).toMatchObject({ threads: [thread], killed: 0 });
  });

  it("kills a thread whose code outlasts its limit and the grace, fails it at its time limit, and replaces the thread without losing what waits", async () => {
    const pool = poolOf(1, { killGraceMs: 300 });
    const stuck = pool.run(request("ws_a", UNINTERRUPTIBLE, { limits: BIG }));
    const waiting = pool.run(request("ws_a", "return input", { input: "after" }));
    await until(pool, (stats) => stats.busy === 1);
    const [killedThread] = pool.stats().threads;

    const error = await failureOf(stuck);
    expect({ failure: error.failure, message: error.message }).toEqual({
      failure: "time_limit",
      message: "The code exceeded its time limit of 200 ms",
    });
    await expect(waiting).resolves.toMatchObject({ value: "after" });
    const stats = pool.stats();
    expect(stats.killed).toBe(1);
    expect(stats.threads).toHaveLength(1);
    expect(stats.threads).not.toContain(killedThread);
  });

  it("fails a memory hog at its memory limit (QuickJS's capped memory)", async () => {
    const pool = poolOf(1);
    const error = await failureOf(
      pool.run(
        request("ws_a", "const a = []; for (;;) a.push(new Array(1e5).fill(0));", {
          limits: { timeLimitMs: 5000, memoryLimitBytes: 16 * MB },
        }),
      ),
    );
    expect({ failure: error.failure, message: error.message }).toEqual({
      failure: "memory_limit",
      message: "The code exceeded its memory limit of 16 MB",
    });
    await expect(pool.run(request("ws_a", "return 1"))).resolves.toMatchObject({ value: 1 });
  });

  it("fails a result too large for the thread's own heap at the memory limit, and replaces the thread", async () => {
    const pool = poolOf(1, { threadHeapMb: 16 });
    await expect(pool.run(request("ws_a", "return 1"))).resolves.toMatchObject({ value: 1 });
    const [first] = pool.stats().threads;
    // 20 MB of text fits QuickJS's 128 MB, not a 16 MB heap once it leaves QuickJS.
    const error = await failureOf(
      pool.run(
        request("ws_a", 'return "x".repeat(2e7);', { limits: { timeLimitMs: 10_000, memoryLimitBytes: 128 * MB } }),
      ),
    );
    expect({ failure: error.failure, message: error.message }).toEqual({
      failure: "memory_limit",
      message: "The code exceeded its memory limit of 128 MB",
    });
    await expect(pool.run(request("ws_a", "return 2"))).resolves.toMatchObject({ value: 2 });
    expect(pool.stats().threads).not.toContain(first);
  });

  it("keeps the sandbox's stack limit on a thread, whose host stack differs from the main thread's", async () => {
    const pool = poolOf(1);
    const deep = [
      "const f = (n) => f(n + 1) + 1; return f(0);",
      "let a = []; for (let i = 0; i < 100000; i++) a = [a]; return JSON.stringify(a).length;",
    ];
    const roomy = { ...limits, timeLimitMs: 5000 };
    for (const code of deep) {
      expect((await failureOf(pool.run(request("ws_a", code, { limits: roomy })))).failure).toBe("stack_limit");
    }
    const shallow = "const f = (n) => (n === 0 ? 0 : 1 + f(n - 1)); return f(300);";
    await expect(pool.run(request("ws_a", shallow))).resolves.toMatchObject({ value: 300 });
  });

  it("runs evaluations of different workspaces in parallel, as many at once as it has threads", async () => {
    const pool = poolOf(2);
    await warmUp(pool, 2);
    const spans = (await Promise.all(
      ["ws_a", "ws_b", "ws_c"].map((ws) =>
        pool.run(request(ws, busyFor(600), { limits: { ...limits, timeLimitMs: 5000 } })).then((r) => r.value),
      ),
    )) as Array<[number, number]>;
    const most = Math.max(...spans.map(([at]) => spans.filter(([start, end]) => start <= at && at < end).length));
    expect(most).toBe(2);
  });

  it("gives one workspace at most half of its threads", async () => {
    const pool = poolOf(2);
    await warmUp(pool, 2);
    const spans = (await Promise.all(
      [1, 2].map(() =>
        pool.run(request("ws_a", busyFor(300), { limits: { ...limits, timeLimitMs: 5000 } })).then((r) => r.value),
      ),
    )) as Array<[number, number]>;
    const [first, second] = spans.sort(([a], [b]) => a - b) as [[number, number], [number, number]];
    expect(second[0]).toBeGreaterThanOrEqual(first[1]);
  });

  it("starts another workspace's evaluation while one workspace floods it, without waiting for the flood", async () => {
    const pool = poolOf(2);
    const ended: string[] = [];
    const flood = Array.from({ length: 6 }, (_, i) =>
      pool
        .run(request("ws_flood", "for (;;) {}", { limits: { ...limits, timeLimitMs: 5000 } }))
        .catch((error: JsSandboxError) => error.failure)
        .finally(() => ended.push(`flood ${i}`)),
    );
    await until(pool, (stats) => stats.busy === 1 && stats.waiting === 5);

    const other = await pool.run(request("ws_other", "return 'served'"));
    ended.push("other");
    expect(other.value).toBe("served");
    // The flood's first evaluation holds its thread for 5 s; the other workspace did not wait for it.
    expect(ended).toEqual(["other"]);
    expect(await Promise.all(flood.slice(0, 1))).toEqual(["time_limit"]);
  });

  it("serves waiting workspaces round-robin, each workspace's evaluations in order", async () => {
    const pool = poolOf(1);
    const order: string[] = [];
    const runs = [
      ["ws_a", "a1"],
      ["ws_a", "a2"],
      ["ws_a", "a3"],
      ["ws_b", "b1"],
      ["ws_c", "c1"],
    ].map(([ws, name]) =>
      pool.run(request(ws!, `return ${JSON.stringify(name)}`)).then((r) => order.push(r.value as string)),
    );
    await Promise.all(runs);
    expect(order).toEqual(["a1", "b1", "c1", "a2", "a3"]);
  });

  it("gives up an evaluation whose signal aborts: it leaves the queue, or its thread is terminated", async () => {
    const pool = poolOf(1);
    const running = new AbortController();
    const queued = new AbortController();
    const spinning = pool.run(
      request("ws_a", "for (;;) {}", { limits: { ...limits, timeLimitMs: 10_000 }, signal: running.signal }),
    );
    const waiting = pool.run(request("ws_a", "return 1", { signal: queued.signal }));
    await until(pool, (stats) => stats.busy === 1 && stats.waiting === 1);

    queued.abort(new Error("cancelled while waiting"));
    await expect(waiting).rejects.toThrow("cancelled while waiting");
    running.abort(new Error("cancelled while running"));
    await expect(spinning).rejects.toThrow("cancelled while running");
    expect(pool.stats()).toMatchObject({ busy: 0, waiting: 0, killed: 1 });
    await expect(pool.run(request("ws_a", "return 2"))).resolves.toMatchObject({ value: 2 });
  });

  it("fails an input without a JSON form before it reaches a thread", async () => {
    const pool = poolOf(1);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const error = await failureOf(pool.run(request("ws_a", "return input", { input: circular })));
    expect(error.failure).toBe("input");
    expect(pool.stats().threads).toEqual([]);
  });

  it("closes: what runs or waits fails as an internal (retryable) failure and no thread is left", async () => {
    const pool = poolOf(1);
    const running = pool.run(request("ws_a", UNINTERRUPTIBLE, { limits: { ...BIG, timeLimitMs: 10_000 } }));
    const waiting = pool.run(request("ws_a", "return 1"));
    await until(pool, (stats) => stats.busy === 1);

    const failures = Promise.all([failureOf(running), failureOf(waiting)]);
    await pool.close();
    expect((await failures).map((error) => error.failure)).toEqual(["internal", "internal"]);
    expect(pool.stats()).toEqual({ threads: [], busy: 0, waiting: 0, killed: 0 });
    expect((await failureOf(pool.run(request("ws_a", "return 1")))).failure).toBe("internal");
  });

  it("lets a process that closes it exit, even with code still spinning on a thread", async () => {
    const pool = new URL("./js-sandbox-pool.ts", import.meta.url).href;
    // Without close() the spinning thread would hold the process for its 10 s limit and a minute's grace.
    const script = `
      const { createJsSandboxPool } = await import(${JSON.stringify(pool)});
      const pool = createJsSandboxPool({ threads: 1, killGraceMs: 60000 });
      const spinning = pool.run({ code: ${JSON.stringify(UNINTERRUPTIBLE)}, input: null, workspaceId: "ws",
        limits: { timeLimitMs: 10000, memoryLimitBytes: ${128 * MB} } }).catch((error) => error.failure);
      for (let i = 0; i < 500 && pool.stats().busy === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      await pool.close();
      console.log("closed", await spinning);
    `;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    const [code] = (await once(child, "exit")) as [number | null];
    clearTimeout(killer);
    expect({ code, output: output.trim() }).toEqual({ code: 0, output: "closed internal" });
  });
});

// The runaway: an endless tail recursion, which JSONata's depth limit never meets.
const ENDLESS = "($f := function($n){ $f($n+1) }; $f(0))";

function expressionPoolOf(processes: number) {
  const pool = createExpressionPool({ processes });
  pools.push(pool);
  return pool;
}

const evaluation = (workspaceId: string, expression: string, more: Partial<JsonataRequest> = {}): JsonataRequest => ({
  expression,
  input: null,
  timeLimitMs: 300,
  workspaceId,
  ...more,
});

/** Whether the process runs (a zombie, exited but not yet reaped, does not). */
function isRunning(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]![0] !== "Z";
  } catch {
    return false;
  }
}

/** Runs a module script with tsx in a process of its own; resolves to its exit code and output. */
async function runScript(script: string, onLine?: (line: string, child: ReturnType<typeof spawn>) => void) {
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    for (const line of chunk.toString().split("\n").filter(Boolean)) onLine?.(line, child);
  });
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const [code, signal] = (await once(child, "exit")) as [number | null, string | null];
  clearTimeout(killer);
  return { code, signal, output: output.trim() };
}

describe("the expression pool", () => {
  const poolModule = JSON.stringify(new URL("./js-sandbox-pool.ts", import.meta.url).href);

  it("evaluates JSONata in a process of its own, which stays for the next evaluation", async () => {
    const pool = expressionPoolOf(1);
    await expect(
      pool.run(evaluation("ws_a", "$sum(items.price)", { input: { items: [{ price: 2 }, { price: 3 }] } })),
    ).resolves.toBe(5);
    const [pid] = pool.stats().threads;
    expect(pid).not.toBe(process.pid);
    expect(isRunning(pid!)).toBe(true);
    await expect(pool.run(evaluation("ws_a", "$run.id", { bindings: { run: { id: "run_1" } } }))).resolves.toBe(
      "run_1",
    );
    expect(pool.stats()).toEqual({ threads: [pid], busy: 0, waiting: 0, killed: 0 });
  });

  it("starts another workspace's evaluation while one workspace's runaways hold their half of the processes", async () => {
    const pool = expressionPoolOf(2);
    const flood = [1, 2, 3].map(() =>
      pool.run(evaluation("ws_flood", ENDLESS, { timeLimitMs: 3000 })).catch((error: JsSandboxError) => error.message),
    );
    await until(pool, (stats) => stats.busy === 1 && stats.waiting === 2);

    await expect(pool.run(evaluation("ws_other", '"served"'))).resolves.toBe("served");
    // The flood's first evaluation still holds its process; the other workspace did not wait for it.
    expect(pool.stats()).toMatchObject({ busy: 1, waiting: 2 });
    expect(await flood[0]).toBe("The expression exceeded its time limit of 3000 ms");
  });

  it("gives up an evaluation whose signal aborts: its process is killed and replaced", async () => {
    const pool = expressionPoolOf(1);
    const running = new AbortController();
    const spinning = pool.run(evaluation("ws_a", ENDLESS, { timeLimitMs: 10_000, signal: running.signal }));
    await until(pool, (stats) => stats.busy === 1);
    const [pid] = pool.stats().threads;
    running.abort(new Error("cancelled while running"));
    await expect(spinning).rejects.toThrow("cancelled while running");
    await expect(pool.run(evaluation("ws_a", "1 + 1"))).resolves.toBe(2);
    expect(pool.stats().killed).toBe(1);
    expect(pool.stats().threads).not.toContain(pid);
    for (let i = 0; i < 100 && isRunning(pid!); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(isRunning(pid!)).toBe(false);
  });

  it("lets the process that owns it exit while its processes idle, and they end with it", async () => {
    const script = `
      const { createExpressionPool } = await import(${poolModule});
      const pool = createExpressionPool({ processes: 1 });
      console.log("result", await pool.run({ expression: "1 + 1", input: null, timeLimitMs: 1000, workspaceId: "ws" }));
      console.log("pid", pool.stats().threads[0]);
    `;
    const { code, output } = await runScript(script);
    expect({ code, output: output.replace(/pid \d+/, "pid <pid>") }).toEqual({
      code: 0,
      output: "result 2\npid <pid>",
    });
    const pid = Number(/pid (\d+)/.exec(output)![1]);
    for (let i = 0; i < 100 && isRunning(pid); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(isRunning(pid)).toBe(false);
  });

  it("leaves no process behind when the process that owns it is killed mid-evaluation", async () => {
    const script = `
      const { createExpressionPool } = await import(${poolModule});
      const pool = createExpressionPool({ processes: 1 });
      void pool.run({ expression: ${JSON.stringify(ENDLESS)}, input: null, timeLimitMs: 10000, workspaceId: "ws" }).catch(() => {});
      for (let i = 0; i < 500 && pool.stats().busy === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      console.log("pid", pool.stats().threads[0]);
      await new Promise((resolve) => setTimeout(resolve, 60000));
    `;
    let pid: number | undefined;
    const { signal } = await runScript(script, (line, child) => {
      const found = /^pid (\d+)$/.exec(line);
      if (!found) return;
      pid = Number(found[1]);
      child.kill("SIGKILL");
    });
    expect(signal).toBe("SIGKILL");
    expect(pid).toBeGreaterThan(0);
    // The orphan leaves within a second or so, not after its 10 s evaluation (nor never, for a
    // backtracking regular expression).
    for (let i = 0; i < 100 && isRunning(pid!); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(isRunning(pid!)).toBe(false);
  });
});
