import { describe, expect, it } from "vitest";
import { ancestorsOf, buildGraph, findCycle, topologicalOrder } from "./graph.js";

const nodes = (...ids: string[]) => ids.map((id) => ({ id }));
const edges = (...pairs: string[]) => pairs.map((pair) => ({ from: pair[0]!, to: pair[1]! }));

describe("flow graph", () => {
  it("orders nodes topologically, stable in definition order", () => {
    const graph = buildGraph(nodes("a", "c", "b", "d"), edges("ab", "ac", "bd", "cd"));
    expect(topologicalOrder(graph)).toEqual(["a", "c", "b", "d"]);
  });

  it("names a cycle as a closed path", () => {
    const graph = buildGraph(nodes("a", "b", "c", "d"), edges("ab", "bc", "cb", "cd"));
    expect(findCycle(graph)).toEqual(["b", "c", "b"]);
    expect(() => topologicalOrder(graph)).toThrow(/cycle/);
    expect(findCycle(buildGraph(nodes("a", "b"), edges("ab")))).toBeUndefined();
  });

  it("finds every ancestor", () => {
    const graph = buildGraph(nodes("a", "b", "c", "d", "e"), edges("ab", "bc", "dc", "ce"));
    expect([...ancestorsOf(graph, "e")].sort()).toEqual(["a", "b", "c", "d"]);
    expect(ancestorsOf(graph, "a").size).toBe(0);
  });
});
