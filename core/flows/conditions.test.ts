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
});
