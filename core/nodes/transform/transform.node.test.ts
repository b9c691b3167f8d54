import { describe, expect, it } from "vitest";
import type { NodeEnv } from "../define-node.js";
import { NodeError } from "../node-error.js";
import { MAX_DEPTH, transformNode } from "./transform.node.js";

function fakeEnv(signal = new AbortController().signal): NodeEnv {
  return {
    run: { id: "run_1", flowId: "flow_1", workspaceId: "ws_1", nodeId: "shape", attempt: 2 },
    signal,
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
      `The expression exceeded its depth limit of ${MAX_DEPTH} nested evaluations (endless recursion?)`,
    );
    expect(await transform(null, { expression: "($f := function($n) { $n = 0 ? 0 : 1 + $f($n - 1) }; $f(100))" })).toBe(
      100,
    );
  });

  it("stops when the run is cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure(order, { expression: "items.sku" }, fakeEnv(controller.signal));
    expect(error.message).toBe("The run was cancelled");
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
