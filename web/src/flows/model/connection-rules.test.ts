import { describe, expect, it } from "vitest";
import { connectionProblem, findLoop } from "./connection-rules";

const chain = [
  { source: "start", target: "fetch" },
  { source: "fetch", target: "save" },
];

describe("drawing an edge", () => {
  it("allows an edge that keeps the flow going forward", () => {
    expect(connectionProblem(chain, "start", "save")).toBeNull();
  });

  it("refuses a loop, naming the nodes", () => {
    const names: Record<string, string> = { start: "Start", save: "Save it" };
    expect(connectionProblem(chain, "save", "start", (id) => names[id] ?? id)).toBe(
      "That would make a loop: Start already leads to Save it.",
    );
  });

  it("refuses a second edge between the same two nodes, and a node joined to itself", () => {
    expect(connectionProblem(chain, "start", "fetch")).toBe("start already leads to fetch.");
    expect(connectionProblem(chain, "fetch", "fetch")).toBe("A node cannot lead to itself.");
  });
});

describe("a loop already there", () => {
  it("is found as a closed path", () => {
    const edges = [...chain, { source: "save", target: "fetch" }];
    expect(findLoop(["start", "fetch", "save"], edges)).toEqual(["fetch", "save", "fetch"]);
  });

  it("is not found in a flow without one", () => {
    expect(findLoop(["start", "fetch", "save"], chain)).toBeNull();
  });
});
