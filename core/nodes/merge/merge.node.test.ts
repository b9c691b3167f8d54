import { describe, expect, it } from "vitest";
import { mergeNode } from "./merge.node.js";

const outputs = { left: { a: 1 }, right: [2], skipped: undefined };
const combine = (mode: string | undefined, parents: string[]) =>
  mergeNode.combine!(outputs, parents, mergeNode.config.parse(mode ? { mode } : {}));

describe("merge node", () => {
  it("combines its parents' outputs as an object keyed by node id by default", () => {
    expect(combine(undefined, ["left", "right"])).toBe(outputs);
  });

  it("as an array in edge order, or the first output", () => {
    expect(combine("array", ["right", "left"])).toEqual([[2], { a: 1 }]);
    expect(combine("first", ["right", "left"])).toEqual([2]);
    expect(combine("first", [])).toBeNull();
  });

  it("refuses an unknown mode", () => {
    expect(mergeNode.config.safeParse({ mode: "zip" }).success).toBe(false);
  });
});
