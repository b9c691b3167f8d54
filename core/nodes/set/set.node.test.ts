import { describe, expect, it } from "vitest";
import type { NodeEnv } from "../define-node.js";
import { NodeError } from "../node-error.js";
import { setNode, splitPath } from "./set.node.js";

const env: NodeEnv = {
  run: { id: "run_1", flowId: "flow_1", workspaceId: "ws_1", nodeId: "set", attempt: 1 },
  signal: new AbortController().signal,
  async log() {},
};

const set = (input: unknown, config: Record<string, unknown>) =>
  setNode.execute!(input, setNode.config.parse(config), env);

describe("set node", () => {
  it("builds nested objects from dotted keys", async () => {
    const output = await set(
      { ignored: true },
      {
        fields: {
          "customer.name": "Ada",
          "customer.address.city": "London",
          total: 42,
          tags: ["a", "b"],
          "file\\.name": "report.pdf",
        },
      },
    );
    expect(output).toEqual({
      customer: { name: "Ada", address: { city: "London" } },
      total: 42,
      tags: ["a", "b"],
      "file.name": "report.pdf",
    });
  });

  it("sets a field whose template found nothing to null, and lets a later field win", async () => {
    expect(await set(null, { fields: { missing: undefined, a: 1, "b.c": 1, b: "replaced" } })).toEqual({
      missing: null,
      a: 1,
      b: "replaced",
    });
  });

  it("with keep_input, sets the fields over a copy of the input", async () => {
    const input = { id: 7, customer: { name: "Ada", email: "ada@example.com" }, status: "new" };
    const output = await set(input, {
      fields: { status: "paid", "customer.name": "Ada L.", "customer.vip": true },
      keep_input: true,
    });
    expect(output).toEqual({
      id: 7,
      customer: { name: "Ada L.", email: "ada@example.com", vip: true },
      status: "paid",
    });
    expect(input).toEqual({ id: 7, customer: { name: "Ada", email: "ada@example.com" }, status: "new" });
    expect(await set(null, { fields: { a: 1 }, keep_input: true })).toEqual({ a: 1 });
  });

  it("fails when keep_input meets an input that is not an object", async () => {
    await expect(set([1, 2], { fields: { a: 1 }, keep_input: true })).rejects.toThrow(
      "keep_input needs an object as input, got an array",
    );
    await expect(set("text", { fields: { a: 1 }, keep_input: true })).rejects.toMatchObject({ retryable: false });
  });

  it("fails on a path through a value that is not an object", async () => {
    const error = await set({ customer: "Ada" }, { fields: { "customer.name": "Ada" }, keep_input: true }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NodeError);
    expect(error).toMatchObject({
      message: 'Cannot set "customer.name": "customer" is "Ada", not an object',
      retryable: false,
    });
  });

  it("refuses keys that are empty or reach for __proto__", async () => {
    expect(setNode.config.safeParse({ fields: { "a..b": 1 } }).success).toBe(false);
    expect(setNode.config.safeParse({ fields: { ".a": 1 } }).success).toBe(false);
    expect(setNode.config.safeParse({ fields: { "__proto__.polluted": 1 } }).success).toBe(false);
    expect(setNode.config.safeParse({ fields: { "a.__proto__": 1 } }).success).toBe(false);
    const output = await set(null, { fields: { "constructor.prototype.polluted": 1 } });
    expect(output).toEqual({ constructor: { prototype: { polluted: 1 } } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("splits paths on dots that are not escaped", () => {
    expect(splitPath("a.b\\.c.d")).toEqual(["a", "b.c", "d"]);
  });
});
