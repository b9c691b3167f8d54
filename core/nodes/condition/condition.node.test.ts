import { describe, expect, it } from "vitest";
import { conditionNode } from "./condition.node.js";

const decide = (input: unknown, config: Record<string, unknown>) =>
  conditionNode.decide!(input, conditionNode.config.parse(config));

describe("condition node", () => {
  it("follows true or false and passes its input on unchanged", () => {
    const input = { status: 200 };
    expect(decide(input, { left: 200, right: 200 })).toEqual({ output: input, branch: "true" });
    expect(decide(input, { left: 404, right: 200 })).toEqual({ output: input, branch: "false" });
    expect(decide(input, { left: 5, operator: "greater_than", right: 3 }).branch).toBe("true");
  });

  it("compares values as JSON, not as strings", () => {
    expect(decide(null, { left: "200", right: 200 }).branch).toBe("false");
    expect(decide(null, { left: { a: [1, 2] }, right: { a: [1, 2] } }).branch).toBe("true");
  });

  it("always offers the two edges true and false, and refuses an unknown operator", () => {
    expect(conditionNode.branches!(conditionNode.config.parse({ left: 1 }))).toEqual(["true", "false"]);
    expect(conditionNode.config.safeParse({ left: 1, operator: "roughly" }).success).toBe(false);
    expect(conditionNode.config.parse({ left: 1 }).operator).toBe("equals");
  });
});
