import { describe, expect, it } from "vitest";
import { branchLabels, OUTPUT_LINE_HEIGHT, outputLabels, outputsHeight } from "./node-outputs";

const node = (type: string, config: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  type,
  config,
  extra,
});

describe("a node's outputs", () => {
  it("are a condition's true and false, a branch node's cases then default, a wait's decisions", () => {
    expect(branchLabels("condition", {})).toEqual(["true", "false"]);
    expect(branchLabels("branch", { cases: ["order", 2, true] })).toEqual(["order", "2", "true", "default"]);
    expect(branchLabels("branch", { cases: "{{ input.cases }}" })).toEqual(["default"]);
    expect(branchLabels("wait", {})).toEqual(["approved", "rejected"]);
    expect(branchLabels("wait", { mode: "resume", timeout: "1h", on_timeout: "branch" })).toEqual([
      "resumed",
      "timeout",
    ]);
    expect(branchLabels("wait", { timeout: "1h", on_timeout: "fail" })).toEqual(["approved", "rejected"]);
    expect(branchLabels("http_request", { url: "https://example.com" })).toEqual([]);
  });

  it("end with the error output of a node that branches on error, and are none for a plain node", () => {
    expect(outputLabels(node("http_request", {}, { on_error: "branch" }))).toEqual(["error"]);
    expect(outputLabels(node("condition", {}, { on_error: "branch" }))).toEqual(["true", "false", "error"]);
    expect(outputLabels(node("set", {}, { on_error: "continue" }))).toEqual([]);
  });

  it("make a branching node taller by a line each, and a plain one not at all", () => {
    expect(outputsHeight("condition", {})).toBe(7 + 2 * OUTPUT_LINE_HEIGHT);
    expect(outputsHeight("branch", { cases: ["a", "b"] })).toBe(7 + 3 * OUTPUT_LINE_HEIGHT);
    expect(outputsHeight("set", { fields: {} })).toBe(0);
  });
});
