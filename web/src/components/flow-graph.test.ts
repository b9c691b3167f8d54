import { describe, expect, it } from "vitest";
import type { CatalogEntry, FlowDefinition, Step } from "../types";
import { locateProblems, newNodeId, toDefinition, toEditor } from "./flow-graph";
import { timelineBars } from "../runs/timeline";

const catalog = new Map<string, CatalogEntry>(
  ["manual", "http_request"].map((type) => [
    type,
    {
      id: type,
      type,
      name: type,
      category: type === "manual" ? "trigger" : "integration",
      description: "",
      official: true,
      reaches_outside: true,
      version: 1,
      config_schema: {},
      settings_schema: {},
    },
  ]),
);

describe("flow definition ⇄ canvas", () => {
  it("round-trips nodes, edges, branches, positions and fields the editor does not know", () => {
    const definition: FlowDefinition = {
      error_flow_id: "wf_0123456789abcdef01234567",
      builder: { theme: "dark" },
      nodes: [
        { id: "start", type: "manual", config: {}, position: { x: 10, y: 20 } },
        {
          id: "fetch",
          type: "http_request",
          name: "Fetch",
          config: { url: "https://x.test" },
          retry: { max_attempts: 3 },
        },
      ],
      edges: [{ from: "start", to: "fetch", branch: "true" }],
    };
    const { nodes, edges, settings } = toEditor(definition, catalog);
    // A node without a position: the flow is laid out in layers, and the next save keeps the places.
    const [start, fetch] = [nodes[0]!.position, nodes[1]!.position];
    expect(fetch.x).toBeGreaterThan(start.x + 200);
    expect(fetch.y).toBe(start.y);
    expect(nodes[1]!.data.category).toBe("integration");
    expect(edges[0]!.label).toBe("true");
    expect(settings).toEqual({ error_flow_id: "wf_0123456789abcdef01234567", builder: { theme: "dark" } });
    expect(toDefinition(nodes, edges, settings)).toEqual({
      error_flow_id: "wf_0123456789abcdef01234567",
      builder: { theme: "dark" },
      nodes: [
        { id: "start", type: "manual", config: {}, position: start },
        {
          id: "fetch",
          type: "http_request",
          name: "Fetch",
          config: { url: "https://x.test" },
          retry: { max_attempts: 3 },
          position: fetch,
        },
      ],
      edges: [{ from: "start", to: "fetch", branch: "true" }],
    });
  });

  it("names new nodes after their type, valid and unique", () => {
    expect(newNodeId("http_request", new Set())).toBe("http_request");
    expect(newNodeId("http_request", new Set(["http_request", "http_request_2"]))).toBe("http_request_3");
    expect(newNodeId("ai.prompt", new Set())).toBe("ai_prompt");
    expect(newNodeId("3d", new Set())).toBe("n_3d");
  });

  it("puts the API's problems on the nodes, fields and edges they name, in plain words, each once", () => {
    const located = locateProblems(
      [
        { path: "definition.nodes[1].config.url", message: "Invalid input: expected string, received undefined" },
        { path: "definition.nodes[0].type", message: 'unknown node type "nope"' },
        { path: "definition.edges[0].branch", message: "Invalid input" },
        { path: "definition.edges[0].branch", message: "Invalid input" },
        { path: "definition.edges", message: "the graph has a cycle: start → fetch → start" },
        { path: "definition.nodes[7].id", message: "out of range" },
      ],
      {
        nodeIds: ["start", "fetch"],
        edges: [{ from: "start", to: "fetch" }],
        fieldLabel: (_id, key) => (key === "url" ? "URL" : key),
        nodeLabel: (id) => (id === "fetch" ? "Fetch" : id),
      },
    );
    expect(located.fields.get("fetch")).toEqual({ url: "URL is required" });
    expect(located.nodes.get("fetch")).toEqual([{ key: "url", message: "URL is required" }]);
    expect(located.nodes.get("start")).toEqual([{ message: 'unknown node type "nope"' }]);
    expect(located.edges.get(0)).toEqual(["is not valid"]);
    expect(located.other).toEqual([
      "The edge start → Fetch is not valid",
      "edges: the graph has a cycle: start → fetch → start",
      "nodes[7].id: out of range",
    ]);
  });

  it("ends every edge in an arrowhead", () => {
    expect(toEditor({ nodes: [], edges: [{ from: "a", to: "b" }] }, catalog).edges[0]!.markerEnd).toEqual({
      type: "arrowclosed",
    });
  });
});

describe("run timeline", () => {
  const step = (node: string, start: number, end: number | null, status: Step["status"] = "success"): Step => ({
    node_id: node,
    type: "set",
    status,
    attempt: 1,
    branch: null,
    started_at: new Date(1_000_000 + start).toISOString(),
    finished_at: end === null ? null : new Date(1_000_000 + end).toISOString(),
    duration_ms: end === null ? null : end - start,
    input: null,
    input_unavailable: null,
    output: null,
    error: null,
    carried_over_from: null,
  });

  it("places bars on one time axis: parallel steps overlap, a running one reaches now", () => {
    const { bars, spanMs } = timelineBars(
      [step("a", 0, 100), step("b", 100, 300), step("c", 100, 200), step("d", 300, null, "running")],
      1_000_000 + 400,
    );
    expect(spanMs).toBe(400);
    expect(bars.map((b) => [b.label, b.left, b.width])).toEqual([
      ["a", 0, 25],
      ["b", 25, 50],
      ["c", 25, 25],
      ["d", 75, 25],
    ]);
  });

  it("names bars by the node's name and leaves out the steps a retry carried over", () => {
    const carried = { ...step("start", 500, 500), carried_over_from: "run_before" };
    const { bars } = timelineBars([carried, step("gate", 0, 100)], 1_000_000 + 600, (id) =>
      id === "gate" ? "The gate" : id,
    );
    expect(bars.map((b) => b.label)).toEqual(["The gate"]);
  });

  it("has no bars before a step starts", () => {
    expect(timelineBars([{ ...step("a", 0, null), started_at: null }], Date.now()).bars).toEqual([]);
  });
});
