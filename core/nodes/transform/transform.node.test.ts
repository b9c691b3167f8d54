import { afterAll, describe, expect, it } from "vitest";
import { JSONATA_MAX_DEPTH, JSONATA_MAX_RESULT_CHARS } from "../../sandbox/js-sandbox.contract.js";
import {
  createExpressionPool,
  createJsSandboxPool,
  nodeSandbox,
  type ExpressionPool,
} from "../../sandbox/js-sandbox-pool.js";
import { watchEventLoop } from "../../../test/helpers/event-loop.js";
import type { NodeEnv } from "../define-node.js";
import { NodeError } from "../node-error.js";
import { transformNode } from "./transform.node.js";

// The expression runs where the worker runs it: in a process of the expression pool, handed in as
// env.sandbox.
const pool = createExpressionPool({ processes: 1 });
// A small heap, so that a memory hog reaches its end quickly.
const smallPool = createExpressionPool({ processes: 1, heapMb: 32 });
// Not used here: its threads would start on first use.
const code = createJsSandboxPool({ threads: 1 });
afterAll(() => Promise.all([pool.close(), smallPool.close(), code.close()]));

function fakeEnv(signal = new AbortController().signal, expressions: ExpressionPool = pool): NodeEnv {
  return {
    run: { id: "run_1", flowId: "flow_1", workspaceId: "ws_1", nodeId: "shape", attempt: 2 },
    signal,
    sandbox: nodeSandbox({ code, expressions }, "ws_1", signal),
    async log() {},
  };
}

function transform(input: unknown, config: Record<string, unknown>, env = fakeEnv()) {
  return transformNode.execute!(input, transformNode.config.parse(config), env);
}

async function failure(input: unknown, config: Record<string, unknown>, env = fakeEnv()) {
  const error = await transform(input, config, env).then(
    (value) => {
      throw new Error(`expected a failure, got ${JSON.stringify(value)}`);
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(NodeError);
  expect((error as NodeError).retryable).toBe(false);
  return error as NodeError;
}

/** The longest time this thread's event loop went without running a timer while `work` ran. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  const stop = watchEventLoop();
  await work().catch((error: unknown) => {
    stop();
    throw error;
  });
  return stop();
}

// The runaway: an endless tail recursion, which JSONata's depth limit never meets.
const ENDLESS = "($f := function($n){ $f($n+1) }; $f(0))";

const order = {
  customer: { name: "Ada" },
  items: [
    { sku: "a", price: 2, quantity: 3 },
    { sku: "b", price: 5, quantity: 1 },
  ],
};

describe("transform node", () => {
  it("evaluates an expression against the input", async () => {
    const result = await transform(order, {
      expression: `{
        "customer": customer.name,
        "total": $sum(items.(price * quantity)),
        "skus": items.sku,
        "big": items[price > 3].sku
      }`,
    });
    expect(result).toEqual({ customer: "Ada", total: 11, skus: ["a", "b"], big: "b" });
    expect(await transform([1, 2, 3], { expression: "$sum($)" })).toBe(6);
    expect(await transform(order, { expression: "items.price ~> $map(function($p) { $p * 2 })" })).toEqual([4, 10]);
  });

  it("outputs null for nothing and plain JSON for sequences", async () => {
    expect(await transform(order, { expression: "missing.path" })).toBeNull();
    const skus = await transform(order, { expression: "items.sku" });
    expect(skus).toEqual(["a", "b"]);
    expect(Object.keys(skus as object)).toEqual(["0", "1"]);
  });

  it("binds $run", async () => {
    expect(await transform(null, { expression: "$run" })).toEqual({
      id: "run_1",
      flow_id: "flow_1",
      node_id: "shape",
      attempt: 2,
    });
  });

  it("fails on a syntax error with the JSONata code and position", async () => {
    const error = await failure(order, { expression: "items[price > 3" });
    expect(error.message).toMatch(/^Invalid JSONata expression: Expected "\]" .*\(S0203 at position 15\)$/);
    expect(error.details).toMatchObject({ code: "S0203", position: 15 });
  });

  it("fails on an evaluation error with the JSONata code and position", async () => {
    const error = await failure(order, { expression: 'customer.name + 1 + "x"' });
    expect(error.message).toMatch(/^The expression failed: .+ \(T2001 at position \d+\)$/);
    expect(error.details).toMatchObject({ code: "T2001" });
    expect((await failure(order, { expression: "$nope()" })).message).toMatch(/T1006/);
  });

  it("stops an endless recursion at the time limit", async () => {
    const started = Date.now();
    const error = await failure(null, {
      expression: "($loop := function($n) { $loop($n + 1) }; $loop(0))",
      time_limit_ms: 200,
    });
    expect(error.message).toBe("The expression exceeded its time limit of 200 ms");
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("stops a deep recursion at the depth limit, and allows a shallow one", async () => {
    const deep = await failure(null, {
      expression: "($f := function($n) { $n = 0 ? 0 : 1 + $f($n - 1) }; $f(100000))",
      time_limit_ms: 10_000,
    });
    expect(deep.message).toBe(
      `The expression exceeded its depth limit of ${JSONATA_MAX_DEPTH} nested evaluations (endless recursion?)`,
    );
    expect(await transform(null, { expression: "($f := function($n) { $n = 0 ? 0 : 1 + $f($n - 1) }; $f(100))" })).toBe(
      100,
    );
  });

  it("stops when the run is cancelled, before or while the expression runs", async () => {
    const before = new AbortController();
    before.abort();
    const error = await failure(order, { expression: "items.sku" }, fakeEnv(before.signal));
    expect(error.message).toBe("The run was cancelled");

    const meanwhile = new AbortController();
    const running = failure(null, { expression: ENDLESS, time_limit_ms: 10_000 }, fakeEnv(meanwhile.signal));
    await new Promise((resolve) => setTimeout(resolve, 200));
    meanwhile.abort(new Error("cancelled by the test"));
    expect((await running).message).toBe("The run was cancelled");
    await expect(transform(order, { expression: "$count(items)" })).resolves.toBe(2);
  });

  it("runs a runaway expression off the event loop: the loop keeps serving timers, and the node fails once at its time limit, not retryable", async () => {
    let error: NodeError | undefined;
    const stall = await longestStall(async () => {
      error = await failure(null, { expression: ENDLESS, time_limit_ms: 3000 });
    });
    expect({ message: error?.message, details: error?.details }).toEqual({
      message: "The expression exceeded its time limit of 3000 ms",
      details: expect.objectContaining({ failure: "time_limit", code: "D1012" }),
    });
    // On the event loop, the expression held it for its whole 3 s.
    expect(stall).toBeLessThan(1000);
  });

  it("fails a backtracking regular expression, which JSONata's own deadline cannot stop, at its time limit", async () => {
    const stall = await longestStall(async () => {
      const error = await failure(
        { text: `${"a".repeat(40)}!` },
        { expression: "$match(text, /^(a+)+$/)", time_limit_ms: 300 },
      );
      expect({ message: error.message, details: error.details }).toEqual({
        message: "The expression exceeded its time limit of 300 ms",
        details: { failure: "time_limit" },
      });
    });
    expect(stall).toBeLessThan(1000);
    expect(pool.stats().killed).toBeGreaterThanOrEqual(1);
    await expect(transform(order, { expression: "customer.name" })).resolves.toBe("Ada");
  });

  it("fails an expression that outgrows its process's heap at the memory limit, not retryable, the process replaced", async () => {
    // One large allocation near a worker thread's heap limit aborts the whole process (not the
    // thread): in a process of its own, it aborts that process alone.
    for (const expression of ['$length($pad("", 400000000))', '$count([1..10000000].{ "n": $ })']) {
      const error = await failure(null, { expression, time_limit_ms: 10_000 }, fakeEnv(undefined, smallPool));
      expect({ message: error.message, details: error.details }, expression).toEqual({
        message: "The expression exceeded its memory limit of 32 MB",
        details: { failure: "memory_limit" },
      });
      await expect(transform(order, { expression: "$count(items)" }, fakeEnv(undefined, smallPool))).resolves.toBe(2);
    }
  });

  it("refuses a result larger than the caller should parse", async () => {
    const error = await failure(null, { expression: '$pad("", 17000000, "x")', time_limit_ms: 10_000 });
    expect(error.message).toBe(
      `The expression's result is larger than ${JSONATA_MAX_RESULT_CHARS / 1024 / 1024} MB as JSON`,
    );
  });

  it("refuses a result that is a function, and leaves functions out of objects", async () => {
    expect((await failure(null, { expression: "function($x) { $x }" })).message).toMatch(/is a function/);
    expect((await failure(null, { expression: "$uppercase" })).message).toMatch(/is a function/);
    expect(await transform(null, { expression: '{ "f": function($x) { $x }, "n": 1 }' })).toEqual({ n: 1 });
  });

  it("caps the time limit at 10 s and defaults it to 1 s", () => {
    expect(transformNode.config.parse({ expression: "1" })).toEqual({ expression: "1", time_limit_ms: 1000 });
    expect(transformNode.config.safeParse({ expression: "1", time_limit_ms: 10_001 }).success).toBe(false);
  });
});
