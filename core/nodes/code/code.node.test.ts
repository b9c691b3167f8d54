import { afterAll, describe, expect, it } from "vitest";
import { createExpressionPool, createJsSandboxPool, nodeSandbox } from "../../sandbox/js-sandbox-pool.js";
import type { LogLevel, NodeEnv } from "../define-node.js";
import { NodeError } from "../node-error.js";
import { codeNode } from "./code.node.js";

// The code runs where the worker runs it: on a thread of the sandbox pool, handed in as env.sandbox.
const pool = createJsSandboxPool({ threads: 1 });
// Not used here: its processes would start on first use.
const expressions = createExpressionPool({ processes: 1 });
afterAll(() => pool.close());

function fakeEnv() {
  const logs: Array<{ level: LogLevel; message: string; data: unknown }> = [];
  const signal = new AbortController().signal;
  const env: NodeEnv = {
    run: { id: "run_1", flowId: "flow_1", workspaceId: "ws_1", nodeId: "code", attempt: 1 },
    signal,
    sandbox: nodeSandbox({ code: pool, expressions }, "ws_1", signal),
    async log(level, message, data) {
      logs.push({ level, message, data });
    },
  };
  return { env, logs };
}

const run = (input: unknown, config: Record<string, unknown>, env: NodeEnv) =>
  codeNode.execute!(input, codeNode.config.parse(config), env);

describe("code node", () => {
  it("returns the code's result and writes its console lines to the log afterwards", async () => {
    const { env, logs } = fakeEnv();
    const output = await run(
      { n: 2 },
      {
        code: "console.log('n is', input.n); console.warn('careful'); console.error('bad'); return { doubled: input.n * 2 };",
      },
      env,
    );
    expect(output).toEqual({ doubled: 4 });
    expect(logs).toEqual([
      { level: "info", message: "n is 2", data: { console: "log" } },
      { level: "warn", message: "careful", data: { console: "warn" } },
      { level: "error", message: "bad", data: { console: "error" } },
    ]);
  });

  it("says how many console lines it did not keep", async () => {
    const { env, logs } = fakeEnv();
    await run(null, { code: "for (let i = 0; i < 105; i++) console.log(i);" }, env);
    expect(logs).toHaveLength(101);
    expect(logs.at(-1)).toEqual({
      level: "warn",
      message: "console: 5 more lines were not kept",
      data: { console: "dropped" },
    });
  });

  it("fails without retry on the code's error, after logging what it printed", async () => {
    const { env, logs } = fakeEnv();
    const error = await run(null, { code: "console.log('before');\nthrow new Error('no customer');" }, env).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NodeError);
    expect(error).toMatchObject({
      message: "Error: no customer (line 2)",
      retryable: false,
      details: { failure: "thrown" },
    });
    expect(logs.map((l) => l.message)).toEqual(["before"]);
  });

  it("fails without retry at its time limit", async () => {
    const { env } = fakeEnv();
    await expect(run(null, { code: "while (true) {}", time_limit_ms: 100 }, env)).rejects.toMatchObject({
      message: "The code exceeded its time limit of 100 ms",
      retryable: false,
    });
  });

  it("fails without retry at its memory limit", async () => {
    const { env } = fakeEnv();
    await expect(
      run(null, { code: "const a = []; for (;;) a.push(new Array(1e5).fill(0));", memory_limit_mb: 16 }, env),
    ).rejects.toMatchObject({ message: "The code exceeded its memory limit of 16 MB", retryable: false });
  });

  it("fails without retry on code that QuickJS cannot interrupt, once its thread is killed at the limit", async () => {
    const { env } = fakeEnv();
    await expect(
      run(
        null,
        {
          code: "const a = new Array(2e6).fill(12345.678); for (;;) a.join(',');",
          time_limit_ms: 100,
          memory_limit_mb: 128,
        },
        env,
      ),
    ).rejects.toMatchObject({
      message: "The code exceeded its time limit of 100 ms",
      retryable: false,
      details: { failure: "time_limit" },
    });
    expect(pool.stats().killed).toBe(1);
  });

  it("retries the sandbox's own failure: no sandbox thread to run on", async () => {
    const { env } = fakeEnv();
    const closed = createJsSandboxPool({ threads: 1 });
    await closed.close();
    env.sandbox = nodeSandbox({ code: closed, expressions }, "ws_1");
    await expect(run(null, { code: "return 1" }, env)).rejects.toMatchObject({
      retryable: true,
      details: { failure: "internal" },
    });
  });

  it("fails without retry where the runtime hands it no sandbox", async () => {
    const { env } = fakeEnv();
    delete env.sandbox;
    await expect(run(null, { code: "return 1" }, env)).rejects.toMatchObject({
      message: "This runtime has no JavaScript sandbox (env.sandbox)",
      retryable: false,
    });
  });

  it("bounds its limits: time 10 s at most, memory 16 to 128 MB", () => {
    expect(codeNode.config.parse({ code: "return 1" })).toEqual({
      code: "return 1",
      time_limit_ms: 1000,
      memory_limit_mb: 32,
    });
    expect(codeNode.config.safeParse({ code: "1", time_limit_ms: 10_001 }).success).toBe(false);
    expect(codeNode.config.safeParse({ code: "1", memory_limit_mb: 129 }).success).toBe(false);
    expect(codeNode.config.safeParse({ code: "1", memory_limit_mb: 8 }).success).toBe(false);
  });
});
