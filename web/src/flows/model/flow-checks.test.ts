import { describe, expect, it } from "vitest";
import type { CatalogEntry } from "../../types";
import { checkFlow, mergeProblems, stillStanding, subjectsOf } from "./flow-checks";
import { locateProblems, toEdge, type EditorNode } from "../../components/flow-graph";

const catalog = new Map<string, CatalogEntry>([
  [
    "http_request",
    {
      id: "http_request",
      type: "http_request",
      name: "HTTP request",
      category: "integration",
      description: "",
      official: true,
      reaches_outside: true,
      version: 1,
      settings_schema: {},
      config_schema: {
        url: { type: "string", label: "URL", required: true },
        method: { type: "string", label: "Method", default: "GET" },
      },
    },
  ],
]);

const node = (id: string, config: Record<string, unknown> = {}, name = ""): EditorNode => ({
  id,
  type: "svc",
  position: { x: 0, y: 0 },
  data: {
    type: "http_request",
    name,
    config,
    category: "integration",
    catalogName: "HTTP request",
    problems: [],
    extra: {},
  },
});

describe("the editor's own checks", () => {
  it("names the required settings left out, on the node and the field", () => {
    const checked = checkFlow([node("fetch"), node("done", { url: "https://x.test" })], [], catalog, (id) => id);
    expect(checked.fields.get("fetch")).toEqual({ url: "URL is required" });
    expect(checked.nodes.get("fetch")).toEqual([{ key: "url", message: "URL is required" }]);
    expect(checked.nodes.has("done")).toBe(false);
  });

  it("marks the nodes of a loop and says how to undo it", () => {
    const nodes = [node("a", { url: "u" }), node("b", { url: "u" }, "Bee")];
    const checked = checkFlow(nodes, [toEdge("a", "b", undefined), toEdge("b", "a", undefined)], catalog, (id) =>
      id === "b" ? "Bee" : id,
    );
    expect(checked.nodes.get("a")).toEqual([{ message: "is part of a loop: a → Bee → a" }]);
    expect(checked.other).toEqual([
      "The flow loops: a → Bee → a. Remove one of these edges: a flow only runs forward.",
    ]);
  });
});

describe("the API's problems after a change", () => {
  const reported = locateProblems(
    [
      { path: "definition.nodes[0].config.url", message: "Invalid URL" },
      { path: "definition.nodes[0].type", message: "something about the node" },
      { path: "definition.edges[0].branch", message: "Invalid input" },
    ],
    { nodeIds: ["fetch", "next"], edges: [{ from: "fetch", to: "next" }], fieldLabel: () => "URL" },
  );
  const nodes = [node("fetch", { url: "nope" }), node("next", { url: "https://x.test" })];
  const edges = [toEdge("fetch", "next", undefined)];
  const then = subjectsOf(nodes, edges);

  it("stand while nothing they are about has changed", () => {
    const standing = stillStanding(reported, then, nodes, edges);
    expect(standing.fields.get("fetch")).toEqual({ url: "URL must be a valid URL" });
    expect(standing.nodes.get("fetch")!.map((p) => p.message)).toEqual([
      "URL must be a valid URL",
      "something about the node",
    ]);
    expect(standing.edges.get(0)).toEqual(["is not valid"]);
  });

  it("go when their field, node or edges change, and only those", () => {
    const fixed = [node("fetch", { url: "https://fixed.test" }), nodes[1]!];
    const standing = stillStanding(reported, then, fixed, edges);
    expect(standing.fields.has("fetch")).toBe(false);
    // The node changed too: its own problem goes with the field's; the edge's stands.
    expect(standing.nodes.has("fetch")).toBe(false);
    expect(standing.edges.get(0)).toEqual(["is not valid"]);
    const rewired = stillStanding(reported, then, nodes, [toEdge("next", "fetch", undefined)]);
    expect(rewired.edges.size).toBe(0);
    expect(rewired.other).toEqual([]);
  });

  it("join the editor's own, each message once", () => {
    const own = checkFlow([node("fetch")], [], catalog, (id) => id);
    const merged = mergeProblems(own, mergeProblems(own, stillStanding(reported, then, nodes, edges)));
    expect(merged.nodes.get("fetch")!.map((p) => p.message)).toEqual([
      "URL is required",
      "URL must be a valid URL",
      "something about the node",
    ]);
  });
});
