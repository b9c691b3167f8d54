import { describe, expect, it } from "vitest";
import type { FlowDefinition } from "../../contracts/flow-definition.js";
import { builtinNodes } from "../../nodes/index.js";
import { createNodeRegistry } from "../../nodes/registry.js";
import { givenOutputs } from "./replay-run.js";

const nodes = createNodeRegistry(builtinNodes);

const draft: FlowDefinition = {
  nodes: [
    { id: "start", type: "manual", config: {} },
    { id: "fetch", type: "http_request", config: {} },
    { id: "shape", type: "transform", config: {} },
    { id: "store", type: "kv", config: {} },
    { id: "notify", type: "send_webhook", config: {} },
  ],
  edges: [],
};

describe("givenOutputs", () => {
  it("gives the nodes that reach outside their recorded outputs, by id and type, and nothing to the others", () => {
    const recordedTypes = new Map([
      ["start", "manual"],
      ["fetch", "http_request"],
      ["shape", "transform"],
      // Recorded under another type: its output would not fit, so it counts as unrecorded.
      ["store", "data_table"],
    ]);
    const recorded = {
      start: { output: { n: 1 } },
      fetch: { output: { status: 200, body: { a: 1 } } },
      shape: { output: { total: 1 } },
      store: { output: { rows: [] } },
    };
    expect(givenOutputs(nodes, draft, recordedTypes, recorded)).toEqual({
      fetch: { output: { status: 200, body: { a: 1 } } },
      store: {},
      notify: {},
    });
  });

  it("declares the node types that reach outside, and not the pure ones", () => {
    const outside = builtinNodes.filter((node) => node.reachesOutside).map((node) => node.type);
    expect(outside).toEqual(
      expect.arrayContaining(["http_request", "ai.prompt", "ai.agent", "send_webhook", "flow.call", "loop", "kv"]),
    );
    expect(outside).not.toContain("transform");
    expect(outside).not.toContain("set");
  });
});
