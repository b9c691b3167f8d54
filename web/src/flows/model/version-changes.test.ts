import { describe, expect, it } from "vitest";
import type { FlowDefinition } from "../../types";
import { fieldChanges, formatFieldValue, noChanges, versionChanges } from "./version-changes";

const before: FlowDefinition = {
  priority: 3,
  nodes: [
    { id: "start", type: "manual", config: {}, position: { x: 0, y: 0 } },
    {
      id: "call",
      type: "http_request",
      name: "Fetch",
      config: { url: "https://a.test", method: "GET" },
      position: { x: 0, y: 100 },
    },
    { id: "old", type: "log", config: { message: "bye" } },
  ],
  edges: [
    { from: "start", to: "call" },
    { from: "call", to: "old" },
  ],
};

const after: FlowDefinition = {
  priority: 1,
  error_flow_id: "wf_errors",
  nodes: [
    // Keys in another order (as jsonb hands them back) and a moved trigger.
    { config: {}, type: "manual", id: "start", position: { x: 40, y: 0 } },
    {
      id: "call",
      type: "http_request",
      name: "Fetch",
      config: { method: "POST", url: "https://a.test", headers: { "x-id": "1" } },
      timeout_ms: 5000,
      // No saved place on one side (the editor lays such a node out): no move.
    },
    { id: "say", type: "log", name: "Say it", config: { message: "hi" } },
  ],
  edges: [
    { from: "start", to: "call" },
    { from: "call", to: "say", branch: "true" },
  ],
};

describe("version changes", () => {
  it("lists nodes added and removed, changed fields by path, edges and settings", () => {
    const changes = versionChanges(before, after);
    expect(changes.nodesAdded).toEqual([{ id: "say", type: "log", label: "Say it" }]);
    expect(changes.nodesRemoved).toEqual([{ id: "old", type: "log", label: "old" }]);
    expect(changes.nodesChanged).toEqual([
      { id: "start", type: "manual", label: "start", fields: [], moved: true },
      {
        id: "call",
        type: "http_request",
        label: "Fetch",
        moved: false,
        fields: [
          { path: "config.headers", before: undefined, after: { "x-id": "1" } },
          { path: "config.method", before: "GET", after: "POST" },
          { path: "timeout_ms", before: undefined, after: 5000 },
        ],
      },
    ]);
    expect(changes.edgesAdded).toEqual([{ from: "call", to: "say", branch: "true" }]);
    expect(changes.edgesRemoved).toEqual([{ from: "call", to: "old" }]);
    expect(changes.settings).toEqual([
      { path: "error_flow_id", before: undefined, after: "wf_errors" },
      { path: "priority", before: 3, after: 1 },
    ]);
    expect(noChanges(changes)).toBe(false);
  });

  it("finds nothing between a version and itself with its keys reordered", () => {
    const reordered: FlowDefinition = {
      edges: before.edges.map(({ to, from }) => ({ to, from })),
      nodes: before.nodes.map((node) => Object.fromEntries(Object.entries(node).reverse()) as typeof node),
      priority: 3,
    };
    expect(noChanges(versionChanges(before, reordered))).toBe(true);
  });

  it("compares arrays whole and tells a branch change as an edge removed and one added", () => {
    expect(fieldChanges({ list: [1, 2] }, { list: [2, 1] })).toEqual([{ path: "list", before: [1, 2], after: [2, 1] }]);
    const changes = versionChanges(
      { nodes: before.nodes, edges: [{ from: "call", to: "old", branch: "true" }] },
      { nodes: before.nodes, edges: [{ from: "call", to: "old", branch: "false" }] },
    );
    expect(changes.edgesAdded).toEqual([{ from: "call", to: "old", branch: "false" }]);
    expect(changes.edgesRemoved).toEqual([{ from: "call", to: "old", branch: "true" }]);
  });

  it("prints values as JSON, absent ones as (none), long ones cut", () => {
    expect(formatFieldValue("GET")).toBe('"GET"');
    expect(formatFieldValue(undefined)).toBe("(none)");
    expect(formatFieldValue({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
    expect(formatFieldValue("x".repeat(200), 10)).toBe(`"xxxxxxxx…`);
  });
});
