import { describe, expect, it } from "vitest";
import type { Step } from "../types";
import type { NodeProgress } from "./run-progress";
import { carriedNodes, nodeChanges, nodesBefore, rerunBody, runInput } from "./rerun-plan";

const node = (id: string, state: NodeProgress["state"], step: Partial<Step> = {}): NodeProgress => ({
  id,
  label: id.toUpperCase(),
  type: "set",
  state,
  attempts: [
    {
      node_id: id,
      type: "set",
      status: state === "failed" ? "failed" : "success",
      attempt: 1,
      branch: null,
      started_at: null,
      finished_at: null,
      duration_ms: null,
      input: null,
      input_unavailable: null,
      output: null,
      error: null,
      carried_over_from: null,
      ...step,
    },
  ],
  carriedOverFrom: null,
});

// start → fetch → compute → done, and start → side (a branch that does not depend on compute).
const graph = {
  edges: [
    { from: "start", to: "fetch", branch: null },
    { from: "fetch", to: "compute", branch: null },
    { from: "compute", to: "done", branch: null },
    { from: "start", to: "side", branch: null },
  ],
};
const nodes = [
  node("start", "success", { input: { order: "a1" } }),
  node("fetch", "success", { output: { amount_cents: 120 } }),
  node("side", "success"),
  node("compute", "failed"),
  node("done", "not_run"),
];

describe("the rerun dialog's plan", () => {
  it("carries over what succeeded before the node and not after it; nothing from the start", () => {
    expect(carriedNodes(graph, nodes, "compute").map((n) => n.id)).toEqual(["start", "fetch", "side"]);
    expect(carriedNodes(graph, nodes, "fetch").map((n) => n.id)).toEqual(["start", "side"]);
    expect(carriedNodes(graph, nodes, null)).toEqual([]);
    expect([...nodesBefore(graph, nodes, "compute")]).toEqual(["fetch"]);
  });

  it("reads the run's input from its trigger's step", () => {
    expect(runInput(graph, nodes)).toEqual({ order: "a1" });
    expect(runInput(graph, [node("start", "success", { input: null, input_unavailable: "not_run" })])).toBeUndefined();
  });

  it("sends the input only when changed, the outputs replaced, and names each field whose JSON is wrong", () => {
    const original = { order: "a1" };
    expect(
      rerunBody({
        from: "compute",
        version: "latest",
        input: { text: '{\n  "order": "a1"\n}', original },
        outputs: new Map([["fetch", { label: "FETCH", text: '{"amount": 3}' }]]),
      }),
    ).toEqual({ body: { from_node: "compute", version: "latest", outputs: { fetch: { amount: 3 } } } });
    expect(rerunBody({ from: null, version: "run", input: { text: '{"order":"b2"}', original } })).toEqual({
      body: { version: "run", input: { order: "b2" } },
    });
    expect(rerunBody({ from: "x", fromFailed: true, version: "latest" })).toEqual({
      body: { from_failed: true, version: "latest" },
    });
    const bad = rerunBody({
      from: "compute",
      version: "run",
      input: { text: "[1]", original },
      outputs: new Map([["fetch", { label: "FETCH", text: "{amount: 3" }]]),
    });
    expect("errors" in bad && bad.errors).toEqual([
      "The trigger's input must be a JSON object ({ … })",
      expect.stringMatching(/^The output of FETCH is not valid JSON: /),
    ]);
  });

  it("names the nodes the latest version changed on the rerun's path, not those before it or moved", () => {
    const v1 = {
      nodes: [
        { id: "start", config: {} },
        { id: "fetch", config: { url: "a" } },
        { id: "compute", name: "Compute", config: { code: "x" } },
        { id: "done", config: {} },
      ],
      edges: graph.edges.slice(0, 3),
    };
    const v2 = {
      nodes: [
        { id: "start", config: { extra: 1 } },
        { id: "fetch", config: { url: "a" }, position: { x: 5, y: 5 } },
        { id: "compute", name: "Compute", config: { code: "y" } },
        { id: "finish", config: {} },
      ],
      edges: [...graph.edges.slice(0, 2), { from: "compute", to: "finish", branch: null }],
    };
    expect(nodeChanges(v1, v2, "fetch")).toEqual([
      { id: "compute", label: "Compute", change: "changed" },
      { id: "finish", label: "finish", change: "new" },
      { id: "done", label: "done", change: "removed" },
    ]);
    expect(nodeChanges(v1, v2, null).map((c) => c.id)).toEqual(["start", "compute", "finish", "done"]);
    expect(nodeChanges(v1, v1, "fetch")).toEqual([]);
  });
});
