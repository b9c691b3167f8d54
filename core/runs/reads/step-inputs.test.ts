import { describe, expect, it } from "vitest";
import type { FlowDefinition } from "../../contracts/flow-definition.js";
import { stepInputs, type RecordedStep } from "./step-inputs.js";

const definition = (nodes: Array<[string, string]>, edges: Array<[string, string, string?]>): FlowDefinition => ({
  nodes: nodes.map(([id, type]) => ({ id, type, config: {} })),
  edges: edges.map(([from, to, branch]) => ({ from, to, ...(branch ? { branch } : {}) })),
});

const step = (nodeId: string, status: string, output: unknown = null, extra: Partial<RecordedStep> = {}) => ({
  nodeId,
  attempt: 1,
  status,
  output,
  branch: null,
  ...extra,
});

const keyed = (type: string) => type === "merge";

describe("stepInputs", () => {
  it("gives roots the run's input and a child its one parent's output", () => {
    const inputs = stepInputs({
      definition: definition(
        [
          ["start", "manual"],
          ["a", "set"],
          ["b", "set"],
        ],
        [
          ["start", "a"],
          ["a", "b"],
        ],
      ),
      runInput: { n: 1 },
      steps: [step("start", "success", { n: 1 }), step("a", "success", { doubled: 2 }), step("b", "running")],
      keyed,
    });
    expect(Object.fromEntries(inputs)).toEqual({
      start: { input: { n: 1 }, unavailable: null },
      a: { input: { n: 1 }, unavailable: null },
      b: { input: { doubled: 2 }, unavailable: null },
    });
  });

  it("keys the input by parent for several parents and for a merge, leaving out branches not taken", () => {
    const inputs = stepInputs({
      definition: definition(
        [
          ["start", "manual"],
          ["check", "condition"],
          ["yes", "set"],
          ["no", "set"],
          ["join", "merge"],
          ["both", "set"],
        ],
        [
          ["start", "check"],
          ["check", "yes", "true"],
          ["check", "no", "false"],
          ["yes", "join"],
          ["no", "join"],
          ["yes", "both"],
          ["check", "both"],
        ],
      ),
      runInput: {},
      // "no" has no row yet (skipped nodes are recorded at the run's end): inferred skipped.
      steps: [
        step("start", "success", { v: 0 }),
        step("check", "success", { v: 0 }, { branch: "true" }),
        step("yes", "success", { v: 1 }),
        step("join", "running"),
        step("both", "running"),
      ],
      keyed,
    });
    expect(inputs.get("join")).toEqual({ input: { yes: { v: 1 } }, unavailable: null });
    expect(inputs.get("both")).toEqual({ input: { yes: { v: 1 }, check: { v: 0 } }, unavailable: null });
  });

  it("uses the latest attempt, and says why an input is unknown", () => {
    const def = definition(
      [
        ["start", "manual"],
        ["flaky", "set"],
        ["after", "set"],
        ["skipped", "set"],
      ],
      [
        ["start", "flaky"],
        ["flaky", "after"],
        ["start", "skipped", "never"],
      ],
    );
    const steps = [
      step("flaky", "failed", null, { attempt: 1 }),
      step("flaky", "success", { ok: true }, { attempt: 2 }),
      step("after", "running"),
      step("skipped", "skipped"),
    ];
    // The root's row is not written yet (a quick node's row waits for the next write).
    const pending = stepInputs({ definition: def, runInput: { a: 1 }, steps, keyed });
    expect(pending.get("flaky")).toEqual({ input: null, unavailable: "upstream_pending" });
    expect(pending.get("after")).toEqual({ input: { ok: true }, unavailable: null });
    expect(pending.get("skipped")).toEqual({ input: null, unavailable: "not_run" });

    const gone = stepInputs({ definition: null, runInput: { a: 1 }, steps, keyed });
    expect([...gone.values()].map((i) => i.unavailable)).toEqual([
      "definition_missing",
      "definition_missing",
      "definition_missing",
    ]);
  });

  it("gives the children of a handled failure its error output, on the edges its branch takes", () => {
    const def = definition(
      [
        ["start", "manual"],
        ["call", "http_request"],
        ["next", "set"],
        ["recover", "set"],
        ["after", "set"],
      ],
      [
        ["start", "call"],
        ["call", "next"],
        ["call", "recover", "error"],
        ["recover", "after"],
      ],
    );
    const failure = { error: { message: "boom", code: "NodeError" } };
    const steps = [
      step("start", "success", {}),
      step("call", "failed", null, { attempt: 1, error: { message: "boom" } }),
      step("call", "failed", failure, { attempt: 2, branch: "error", error: { message: "boom", handled: "branch" } }),
      step("next", "skipped"),
      step("recover", "success", { recovered: true }),
      step("after", "success", {}),
    ];
    const inputs = stepInputs({ definition: def, runInput: {}, steps, keyed });
    expect(inputs.get("recover")).toEqual({ input: failure, unavailable: null });
    expect(inputs.get("after")).toEqual({ input: { recovered: true }, unavailable: null });
    expect(inputs.get("next")).toEqual({ input: null, unavailable: "not_run" });
  });
});
