import { describe, expect, it } from "vitest";
import { builtinNodes } from "../nodes/index.js";
import { createNodeRegistry } from "../nodes/registry.js";
import { FLOW_LIMITS } from "../contracts/flow-definition.js";
import { validateFlowDefinition, type FlowProblem } from "./validate.js";

const registry = createNodeRegistry(builtinNodes);
const problemsOf = (definition: unknown): FlowProblem[] => {
  const result = validateFlowDefinition(definition, registry);
  return result.ok ? [] : result.problems;
};

const valid = {
  nodes: [
    { id: "start", type: "manual", position: { x: 0, y: 0 } },
    { id: "check", type: "condition", config: { left: "{{ input.amount }}", operator: "greater_than", right: 100 } },
    { id: "big", type: "log", config: { message: "big order {{ nodes.start.id }}" } },
    { id: "small", type: "log", config: { level: "debug", message: "small" } },
    { id: "done", type: "merge", config: { mode: "first" } },
  ],
  edges: [
    { from: "start", to: "check" },
    { from: "check", to: "big", branch: "true" },
    { from: "check", to: "small", branch: "false" },
    { from: "big", to: "done" },
    { from: "small", to: "done" },
  ],
  viewport: { zoom: 1 },
};

describe("validateFlowDefinition", () => {
  it("accepts a valid flow and keeps unknown presentational fields", () => {
    const result = validateFlowDefinition(valid, registry);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.definition.nodes[0]).toMatchObject({ id: "start", position: { x: 0, y: 0 }, config: {} });
    expect(result.definition.viewport).toEqual({ zoom: 1 });
  });

  it("reports every problem at once, each with its path", () => {
    const problems = problemsOf({
      nodes: [
        { id: "a", type: "manual" },
        { id: "a", type: "log", config: { message: "dup" } },
        { id: "b", type: "teleport" },
        { id: "c", type: "log", config: {} },
        { id: "9bad", type: "debug" },
      ],
      edges: [{ from: "a", to: "ghost" }],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: "nodes[1].id", message: 'duplicate node id "a" (also nodes[0])' },
        { path: "nodes[2].type", message: 'unknown node type "teleport"' },
        { path: "nodes[3].config.message", message: expect.any(String) },
        { path: "nodes[4].id", message: expect.stringMatching(/must start with a letter/) },
        { path: "edges[0].to", message: 'no node has the id "ghost"' },
      ]),
    );
    expect(problems.length).toBeGreaterThanOrEqual(5);
  });

  it("names the cycle", () => {
    const problems = problemsOf({
      nodes: [
        { id: "a", type: "debug" },
        { id: "b", type: "debug" },
        { id: "c", type: "debug" },
      ],
      edges: [
        { from: "a", to: "b" },
        { from: "b", to: "c" },
        { from: "c", to: "b" },
      ],
    });
    expect(problems).toContainEqual({ path: "edges", message: "the graph has a cycle: b → c → b" });
  });

  it("allows one trigger, as the entry only", () => {
    const problems = problemsOf({
      nodes: [
        { id: "t1", type: "manual" },
        { id: "t2", type: "manual" },
        { id: "x", type: "debug" },
      ],
      edges: [{ from: "x", to: "t1" }],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: "nodes[1].type", message: 'a flow has at most one trigger node ("t1" is one)' },
        { path: "nodes[0].id", message: 'the trigger "t1" is the entry of the flow: no edge may lead into it' },
      ]),
    );
  });

  it("checks branch labels against what the node produces", () => {
    const problems = problemsOf({
      nodes: [
        { id: "c", type: "condition", config: { left: 1, operator: "equals", right: 1 } },
        { id: "s", type: "branch", config: { value: "{{ input.kind }}", cases: ["order", "refund"] } },
        { id: "d", type: "debug" },
        { id: "e", type: "debug" },
      ],
      edges: [
        { from: "c", to: "d", branch: "maybe" },
        { from: "c", to: "s" },
        { from: "s", to: "e", branch: "refund" },
        { from: "d", to: "e", branch: "x" },
      ],
    });
    expect(problems).toEqual([
      { path: "edges[0].branch", message: '"c" has no branch "maybe" (it has true, false)' },
      { path: "edges[1].branch", message: 'edges from "c" (condition) need a branch label: true, false' },
      { path: "edges[3].branch", message: '"d" (debug) has no branches' },
    ]);
  });

  it("checks config against the node type, leaving templated values for run time", () => {
    const problems = problemsOf({
      nodes: [
        { id: "wait", type: "delay", config: { duration: "soon" } },
        { id: "wait2", type: "delay", config: { duration: "{{ input.wait }}" } },
        { id: "loop", type: "loop", config: { items: [], flow_id: "wf_x", concurrency: 99, extra: true } },
      ],
      edges: [],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: "nodes[0].config.duration", message: expect.stringMatching(/duration/) },
        { path: "nodes[2].config.flow_id", message: "must be a flow id (wf_…)" },
        { path: "nodes[2].config.concurrency", message: expect.stringMatching(/20/) },
        { path: "nodes[2].config.extra", message: "unknown config key for loop" },
      ]),
    );
    expect(problems.some((p) => p.path.startsWith("nodes[1]"))).toBe(false);
  });

  it("checks templates: syntax, and references to upstream nodes only", () => {
    const problems = problemsOf({
      nodes: [
        { id: "a", type: "debug" },
        { id: "b", type: "log", config: { message: "{{ nodes.c.id }} and {{ nodes.a.id }}" } },
        { id: "c", type: "log", config: { message: "{{ input.x" } },
      ],
      edges: [{ from: "a", to: "b" }],
    });
    expect(problems).toEqual([
      { path: "nodes[1].config.message", message: '{{ nodes.c }}: "c" is not upstream of "b"' },
      { path: "nodes[2].config.message", message: expect.stringMatching(/unclosed/) },
    ]);
  });

  it("enforces size limits", () => {
    const many = Array.from({ length: FLOW_LIMITS.maxNodes + 1 }, (_, i) => ({ id: `n${i}`, type: "debug" }));
    expect(problemsOf({ nodes: many, edges: [] })).toContainEqual({ path: "nodes", message: "at most 200 nodes" });
    const huge = { nodes: [{ id: "a", type: "debug", blob: "x".repeat(FLOW_LIMITS.maxDefinitionBytes) }], edges: [] };
    expect(problemsOf(huge)[0]!.message).toMatch(/bytes; at most/);
    expect(problemsOf({ nodes: [], edges: [] })).toEqual([
      { path: "nodes", message: "a flow needs at least one node" },
    ]);
  });

  it("refuses a definition that is not an object with nodes", () => {
    expect(problemsOf(null).length).toBeGreaterThan(0);
    expect(problemsOf({ edges: [] })).toEqual([{ path: "nodes", message: expect.any(String) }]);
    expect(problemsOf({ nodes: [{ id: "a", type: "debug" }], edges: "none" })).toContainEqual({
      path: "edges",
      message: "must be an array",
    });
  });

  describe("per-node error handling", () => {
    const withNode = (node: Record<string, unknown>, edges: Array<Record<string, unknown>> = []) => ({
      nodes: [
        { id: "start", type: "manual" },
        { id: "call", type: "http_request", config: { url: "https://example.com" }, ...node },
        { id: "next", type: "log", config: { message: "ok" } },
        { id: "recover", type: "log", config: { message: "{{ input.error.message }}" } },
      ],
      edges: [{ from: "start", to: "call" }, { from: "call", to: "next" }, ...edges],
    });

    it("accepts retry, timeout_ms and on_error, and error edges from a node that branches on error", () => {
      for (const on_error of ["stop", "continue", "branch"]) {
        expect(problemsOf(withNode({ on_error, retry: { max_attempts: 1 }, timeout_ms: 500 }))).toEqual([]);
      }
      const branching = withNode({ on_error: "branch" }, [{ from: "call", to: "recover", branch: "error" }]);
      const result = validateFlowDefinition(branching, registry);
      expect(result.ok).toBe(true);
      if (result.ok) expect(result.definition.nodes[1]).toMatchObject({ on_error: "branch" });
    });

    it("refuses an unknown on_error, bad retry values and a timeout out of range, each at its path", () => {
      const problems = problemsOf(
        withNode({
          on_error: "ignore",
          retry: { max_attempts: 0, backoff_coefficient: 0.5, extra: 1 },
          timeout_ms: 50,
        }),
      );
      // The malformed node is left out of the graph, so its edges are reported too.
      expect(problems.map((p) => p.path).sort()).toEqual([
        "edges[0].to",
        "edges[1].from",
        "nodes[1].on_error",
        "nodes[1].retry",
        "nodes[1].retry.backoff_coefficient",
        "nodes[1].retry.max_attempts",
        "nodes[1].timeout_ms",
      ]);
      expect(problemsOf(withNode({ retry: { max_attempts: FLOW_LIMITS.maxRetryAttempts + 1 } }))[0]?.path).toBe(
        "nodes[1].retry.max_attempts",
      );
    });

    it("refuses a longest retry wait shorter than the first, counting the type's defaults", () => {
      // http_request waits at most 60 s between retries by default (integration).
      expect(problemsOf(withNode({ retry: { initial_interval_ms: 120_000 } }))).toEqual([
        {
          path: "nodes[1].retry.initial_interval_ms",
          message:
            "the longest wait between retries (max_interval_ms, 60000) is shorter than the first (initial_interval_ms, 120000)",
        },
      ]);
      expect(problemsOf(withNode({ retry: { initial_interval_ms: 5000, max_interval_ms: 1000 } }))[0]?.path).toBe(
        "nodes[1].retry.max_interval_ms",
      );
      expect(problemsOf(withNode({ retry: { initial_interval_ms: 120_000, max_interval_ms: 120_000 } }))).toEqual([]);
    });

    it("refuses an error edge from a node that does not branch on error", () => {
      for (const on_error of [undefined, "stop", "continue"]) {
        expect(problemsOf(withNode({ on_error }, [{ from: "call", to: "recover", branch: "error" }]))).toEqual([
          { path: "edges[2].branch", message: '"call" has no error handle: set its on_error to "branch"' },
        ]);
      }
    });

    it("lets a branching node branch on error beside its own branches, but not with a case named error", () => {
      const flowOf = (cases: string[], edges: Array<Record<string, unknown>>) => ({
        nodes: [
          { id: "start", type: "manual" },
          { id: "route", type: "branch", config: { value: "{{ input.kind }}", cases }, on_error: "branch" },
          { id: "a", type: "debug" },
          { id: "b", type: "debug" },
        ],
        edges: [{ from: "start", to: "route" }, ...edges],
      });
      expect(
        problemsOf(
          flowOf(
            ["x"],
            [
              { from: "route", to: "a", branch: "x" },
              { from: "route", to: "b", branch: "error" },
            ],
          ),
        ),
      ).toEqual([]);
      expect(problemsOf(flowOf(["error"], [{ from: "route", to: "a", branch: "error" }]))).toEqual([
        {
          path: "nodes[1].on_error",
          message: '"route" has a branch named "error", the name of its error handle: rename it',
        },
      ]);
    });
  });
});
