import { describe, expect, it } from "vitest";
import { NODE_SIZE, needsLayout, placeNodes, tidyPositions } from "./auto-layout";

/** The branch flow: manual → check → wait → done, and check's false edge → skip. */
const BRANCH_FLOW = {
  nodes: ["start", "check", "approve", "done", "skip"].map((id) => ({ id })),
  edges: [
    { from: "start", to: "check" },
    { from: "check", to: "approve", branch: "true" },
    { from: "approve", to: "done", branch: "approved" },
    { from: "check", to: "skip", branch: "false" },
  ],
};

describe("tidy up", () => {
  it("places each node right of its parents, and nodes of one layer apart", () => {
    const positions = tidyPositions(
      [{ id: "start" }, { id: "left", width: 200, height: 80 }, { id: "right" }, { id: "end" }],
      [
        { source: "start", target: "left" },
        { source: "start", target: "right" },
        { source: "left", target: "end" },
        { source: "right", target: "end" },
      ],
    );
    const at = (id: string) => positions.get(id)!;
    expect(at("left").x).toBeGreaterThan(at("start").x);
    expect(at("right").x).toBeGreaterThan(at("start").x);
    expect(at("end").x).toBeGreaterThan(Math.max(at("left").x, at("right").x));
    // Same layer, not on top of each other.
    expect(Math.abs(at("left").y - at("right").y)).toBeGreaterThanOrEqual(60);
  });

  it("stacks a node's branches top to bottom in their layer, true before false, whatever the edge order", () => {
    for (const edges of [BRANCH_FLOW.edges, [...BRANCH_FLOW.edges].reverse()]) {
      const at = placeNodes(BRANCH_FLOW.nodes, edges);
      const [approve, skip] = [at.get("approve")!, at.get("skip")!];
      expect(skip.x).toBe(approve.x);
      expect(skip.y).toBeGreaterThanOrEqual(approve.y + NODE_SIZE.height);
      expect(at.get("done")!.x).toBeGreaterThan(approve.x + NODE_SIZE.width);
    }
  });

  it("leaves room between layers for a branch label", () => {
    const at = placeNodes(BRANCH_FLOW.nodes, BRANCH_FLOW.edges);
    const gap = at.get("approve")!.x - (at.get("check")!.x + NODE_SIZE.width);
    expect(gap).toBeGreaterThanOrEqual("approved".length * 7 + 12);
  });
});

describe("layout by default", () => {
  it("keeps saved positions that do not overlap", () => {
    const nodes = [
      { id: "a", position: { x: 0, y: 0 } },
      { id: "b", position: { x: 300, y: 0 } },
    ];
    expect(needsLayout(nodes)).toBe(false);
    expect(placeNodes(nodes, [{ from: "a", to: "b" }]).get("b")).toEqual({ x: 300, y: 0 });
  });

  it("lays out a flow when a node has no position, or two overlap", () => {
    expect(needsLayout([{ position: { x: 0, y: 0 } }, {}])).toBe(true);
    expect(needsLayout([{ position: { x: 0, y: 0 } }, { position: { x: 50, y: 20 } }])).toBe(true);
    const placed = placeNodes(
      [
        { id: "a", position: { x: 0, y: 0 } },
        { id: "b", position: { x: 10, y: 10 } },
      ],
      [{ from: "a", to: "b" }],
    );
    expect(placed.get("b")!.x).toBeGreaterThanOrEqual(placed.get("a")!.x + NODE_SIZE.width);
  });
});
