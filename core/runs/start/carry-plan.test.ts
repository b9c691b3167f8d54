import { describe, expect, it } from "vitest";
import type { FlowDefinition } from "../../contracts/flow-definition.js";
import { carryPlan } from "./carry-plan.js";

/** A definition from `id:type` nodes and `from>to` edges. */
function flow(nodes: string[], edges: string[]): FlowDefinition {
  return {
    nodes: nodes.map((spec) => {
      const [id, type] = spec.split(":");
      return { id: id!, type: type ?? "set", config: {} };
    }),
    edges: edges.map((spec) => {
      const [from, to] = spec.split(">");
      return { from: from!, to: to! };
    }),
  };
}

// trigger → http → code → set, and trigger → side (a parallel branch).
const v1 = flow(
  ["trigger:webhook", "http:http_request", "code:code", "set", "side"],
  ["trigger>http", "http>code", "code>set", "trigger>side"],
);

describe("carryPlan", () => {
  it("from a node carries what does not depend on it, in the order the version runs", () => {
    const plan = carryPlan({
      original: v1,
      target: v1,
      succeeded: new Set(["trigger", "http", "code", "set", "side"]),
      from: { node: "code" },
    });
    expect(plan).toEqual({ carried: ["trigger", "http", "side"] });
  });

  it("from the failed node carries every success; from the start nothing", () => {
    const succeeded = new Set(["trigger", "http", "side"]);
    expect(carryPlan({ original: v1, target: v1, succeeded, from: "failed" })).toEqual({
      carried: ["trigger", "http", "side"],
    });
    expect(carryPlan({ original: v1, target: v1, succeeded, from: "start" })).toEqual({ carried: [] });
  });

  it("with a new input, the entry nodes run again and what follows them is carried as otherwise", () => {
    const succeeded = new Set(["trigger", "http", "code", "set", "side"]);
    expect(carryPlan({ original: v1, target: v1, succeeded, from: { node: "code" }, newInput: true })).toEqual({
      carried: ["http", "side"],
    });
    expect(carryPlan({ original: v1, target: v1, succeeded, from: { node: "http" }, newInput: true })).toEqual({
      carried: ["side"],
    });
  });

  it("never carries a node after one that runs again, even one that succeeded", () => {
    // http failed once and was not recorded as a success: code and set, recorded before, rerun.
    const plan = carryPlan({
      original: v1,
      target: v1,
      succeeded: new Set(["trigger", "code", "set", "side"]),
      from: "failed",
    });
    expect(plan).toEqual({ carried: ["trigger", "side"] });
  });

  it("on a newer version, a node inserted upstream makes what follows it run again", () => {
    const v2 = flow(
      ["trigger:webhook", "fix:set", "http:http_request", "code:code", "set", "side"],
      ["trigger>fix", "fix>http", "http>code", "code>set", "trigger>side"],
    );
    const plan = carryPlan({
      original: v1,
      target: v2,
      succeeded: new Set(["trigger", "http", "side"]),
      from: "failed",
    });
    expect(plan).toEqual({ carried: ["trigger", "side"] });
  });

  it("names the from node missing from the target version", () => {
    const v2 = flow(["trigger:webhook", "http:http_request", "set"], ["trigger>http", "http>set"]);
    expect(carryPlan({ original: v1, target: v2, succeeded: new Set(["trigger"]), from: { node: "code" } })).toEqual({
      problem: { kind: "from_node_missing", nodes: ["code"] },
    });
  });

  it("names carried nodes removed from the target or of another type there", () => {
    const v2 = flow(["trigger:webhook", "http:code", "code:code", "set"], ["trigger>http", "http>code", "code>set"]);
    expect(
      carryPlan({
        original: v1,
        target: v2,
        succeeded: new Set(["trigger", "http", "side"]),
        from: { node: "code" },
      }),
    ).toEqual({ problem: { kind: "carried_node_changed", nodes: ["http", "side"] } });
  });

  it("a changed node that runs again is no problem", () => {
    const v2 = flow(
      ["trigger:webhook", "http:http_request", "code:transform", "set", "side"],
      ["trigger>http", "http>code", "code>set", "trigger>side"],
    );
    expect(
      carryPlan({ original: v1, target: v2, succeeded: new Set(["trigger", "http", "side"]), from: "failed" }),
    ).toEqual({ carried: ["trigger", "http", "side"] });
  });
});
