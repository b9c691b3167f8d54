import { describe, expect, it } from "vitest";
import { graphOrder } from "./graph-order";

describe("graph order", () => {
  it("puts every node after its parents, and nodes ready together in definition order", () => {
    const ids = ["join", "b", "start", "a"];
    const edges = [
      { from: "start", to: "b" },
      { from: "start", to: "a" },
      { from: "a", to: "join" },
      { from: "b", to: "join" },
    ];
    expect(graphOrder(ids, edges)).toEqual(["start", "b", "a", "join"]);
  });

  it("ignores edges to unknown nodes and repeated edges", () => {
    const edges = [
      { from: "start", to: "end" },
      { from: "start", to: "end" },
      { from: "ghost", to: "start" },
    ];
    expect(graphOrder(["end", "start"], edges)).toEqual(["start", "end"]);
  });

  it("lists the nodes of a cycle last, in definition order, rather than losing them", () => {
    const edges = [
      { from: "start", to: "a" },
      { from: "a", to: "b" },
      { from: "b", to: "a" },
    ];
    expect(graphOrder(["b", "a", "start", "lonely"], edges)).toEqual(["start", "lonely", "b", "a"]);
  });
});
