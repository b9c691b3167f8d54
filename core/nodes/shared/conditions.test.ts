import { describe, expect, it } from "vitest";
import { evaluateCondition, selectCase } from "./conditions.js";

describe("conditions", () => {
  it.each([
    [200, "equals", 200, true],
    [200, "equals", "200", false],
    [{ a: [1, 2] }, "equals", { a: [1, 2] }, true],
    [3, "greater_than", 2, true],
    ["b", "less_than", "a", false],
    [3, "greater_than", "2", false],
    ["hello world", "contains", "world", true],
    [["x", "y"], "contains", "y", true],
    [["x"], "not_contains", "y", true],
    [undefined, "exists", undefined, false],
    [0, "exists", undefined, true],
    [[], "is_empty", undefined, true],
    [{ k: 1 }, "is_not_empty", undefined, true],
    ["true", "is_true", undefined, false],
  ] as const)("%j %s %j is %s", (left, operator, right, expected) => {
    expect(evaluateCondition(left, operator, right)).toBe(expected);
  });

  it("selects the first matching case or default", () => {
    expect(selectCase("refund", ["order", "refund"])).toBe("refund");
    expect(selectCase(2, [1, 2])).toBe("2");
    expect(selectCase("other", ["order"])).toBe("default");
  });

  it("compares in time linear in the values: a list of 20,000 objects against one of 20,000 keys", () => {
    // Counting the big object's keys again for each item took 20,000 × 20,000 steps (seconds, on
    // the event loop of the process running the node).
    const list = Array.from({ length: 20_000 }, () => ({}));
    const wide = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]));
    const started = performance.now();
    expect(evaluateCondition(list, "contains", wide)).toBe(false);
    expect(evaluateCondition([...list, { ...wide }], "contains", wide)).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("compares values nested 200,000 deep without running out of stack", () => {
    const nest = (leaf: unknown) => {
      let value = leaf;
      for (let i = 0; i < 200_000; i++) value = { a: [value] };
      return value;
    };
    expect(evaluateCondition(nest(1), "equals", nest(1))).toBe(true);
    expect(evaluateCondition(nest(1), "equals", nest(2))).toBe(false);
    expect(selectCase(nest(1), ["x", 1])).toBe("default");
  });
});
