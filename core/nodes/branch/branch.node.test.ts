import { describe, expect, it } from "vitest";
import { branchNode } from "./branch.node.js";

const config = (value: unknown, cases: unknown[]) => branchNode.config.parse({ value, cases });

describe("branch node", () => {
  it("follows the first case equal to the value, else default, passing its input on", () => {
    const input = { kind: "refund" };
    expect(branchNode.decide!(input, config("refund", ["order", "refund"]))).toEqual({
      output: input,
      branch: "refund",
    });
    expect(branchNode.decide!(input, config("other", ["order", "refund"])).branch).toBe("default");
    expect(branchNode.decide!(null, config(2, [1, 2, 3])).branch).toBe("2");
    expect(branchNode.decide!(null, config("2", [1, 2, 3])).branch).toBe("default");
  });

  it("offers one edge per case and default", () => {
    expect(branchNode.branches!(config("x", ["a", 1, true]))).toEqual(["a", "1", "true", "default"]);
  });

  it("refuses duplicate cases, the reserved default, and an empty list", () => {
    expect(branchNode.config.safeParse({ value: 1, cases: ["a", "a"] }).success).toBe(false);
    expect(branchNode.config.safeParse({ value: 1, cases: [1, "1"] }).success).toBe(false);
    expect(branchNode.config.safeParse({ value: 1, cases: ["default"] }).success).toBe(false);
    expect(branchNode.config.safeParse({ value: 1, cases: [] }).success).toBe(false);
  });
});
