import { describe, expect, it } from "vitest";
import type { Step } from "../types";
import {
  completeTemplate,
  insertReference,
  insideJsonString,
  previewOf,
  referenceOf,
  sampleScope,
  upstreamOf,
} from "./expression-help";

const EDGES = [
  { from: "start", to: "lookup" },
  { from: "lookup", to: "greet" },
  { from: "start", to: "audit" },
];

const step = (node_id: string, input: unknown, output: unknown): Step => ({
  node_id,
  type: "x",
  status: "success",
  attempt: 1,
  branch: null,
  started_at: null,
  finished_at: null,
  duration_ms: null,
  input,
  input_unavailable: null,
  output,
  error: null,
  carried_over_from: null,
});

const RUN = {
  id: "run_1",
  flow_id: "wf_1",
  version: 3,
  started_at: "2026-03-01T00:00:00.000Z",
  steps: [
    step("start", { order: 7 }, { order: 7 }),
    step("lookup", { order: 7 }, { customer: { name: "Ada", tags: ["vip"] }, "page size": 20 }),
  ],
};

describe("the sample a node's templates read", () => {
  it("names the nodes upstream of a node, nearest first, and not the others", () => {
    expect(upstreamOf("greet", EDGES)).toEqual(["lookup", "start"]);
    expect(upstreamOf("start", EDGES)).toEqual([]);
  });

  it("comes from the last run's steps: input from its one parent, trigger from the entry node", () => {
    const sample = sampleScope("greet", EDGES, RUN, new Map())!;
    expect(sample.source).toBe("the run run_1");
    expect(sample.scope.input).toEqual(RUN.steps[1]!.output);
    expect(sample.scope.trigger).toEqual({ order: 7 });
    expect(sample.scope.run).toEqual({ id: "run_1", flow_id: "wf_1", version: 3, started_at: RUN.started_at });
    // A node test's output wins over the run's.
    const tested = sampleScope("greet", EDGES, RUN, new Map([["lookup", { customer: { name: "Bo" } }]]))!;
    expect(tested.scope.nodes.lookup).toEqual({ customer: { name: "Bo" } });
    expect(sampleScope("greet", EDGES, null, new Map())).toBeNull();
  });

  it("takes pinned outputs over the run's and the tests', and a pinned parent's output as the input", () => {
    const pinned = new Map([["lookup", { customer: { name: "Pin" } }]]);
    const ownInput = { ...RUN, steps: [...RUN.steps, step("greet", { recorded: true }, { hi: "Ada" })] };
    expect(sampleScope("greet", EDGES, ownInput, new Map())!.scope.input).toEqual({ recorded: true });
    const sample = sampleScope("greet", EDGES, ownInput, new Map([["lookup", { tested: 1 }]]), pinned)!;
    expect(sample.source).toBe("pinned data");
    expect(sample.scope.input).toEqual({ customer: { name: "Pin" } });
    expect(sample.scope.nodes.lookup).toEqual({ customer: { name: "Pin" } });
    // No run yet: the pins alone are a sample.
    expect(sampleScope("start", EDGES, null, new Map(), pinned)!.source).toBe("pinned data");
  });
});

describe("references", () => {
  it("writes a path as the template syntax reads it", () => {
    expect(referenceOf(["nodes", "lookup", "customer", "tags", 0])).toBe("nodes.lookup.customer.tags[0]");
    expect(referenceOf(["input", "page size"])).toBe('input["page size"]');
  });

  const path = ["nodes", "lookup", "customer", "name"];
  const ref = "{{ nodes.lookup.customer.name }}";

  it("puts a bare template into an empty value field: the value itself, whatever its type", () => {
    // The condition's Value, an HTTP body: any JSON value, not a map of fields.
    expect(insertReference({ type: "json", text: "" }, path)).toEqual({ text: ref, caret: ref.length });
    // A value already there (a number, a template) is replaced: a value field holds one value.
    expect(insertReference({ type: "json", text: "100" }, path).text).toBe(ref);
    expect(insertReference({ type: "json", text: "{{ input.x }}" }, path).text).toBe(ref);
  });

  it("adds an entry named after the value to a map field (a set node's fields, headers), or to an object", () => {
    expect(JSON.parse(insertReference({ type: "json", text: "", map: true }, path).text)).toEqual({ name: ref });
    expect(JSON.parse(insertReference({ type: "json", text: '{ "name": 1 }', map: true }, path).text)).toEqual({
      name: 1,
      name_2: ref,
    });
    // An HTTP body being built as an object gets an entry too; an array its next item.
    expect(JSON.parse(insertReference({ type: "json", text: '{ "a": 1 }' }, path).text)).toEqual({ a: 1, name: ref });
    expect(JSON.parse(insertReference({ type: "json", text: "[1]" }, path).text)).toEqual([1, ref]);
  });

  it("goes inside the JSON string the caret is in, and at the caret in a text field", () => {
    const text = '{ "greeting": "Hello !" }';
    const caret = text.indexOf("!");
    expect(insertReference({ type: "json", text, map: true }, path, caret)).toEqual({
      text: `{ "greeting": "Hello ${ref}!" }`,
      caret: caret + ref.length,
    });
    expect(insertReference({ type: "string", text: "Hello !" }, path, 6).text).toBe(`Hello ${ref}!`);
    expect(insideJsonString('{ "a": "x\\"y', 11)).toBe(true);
    expect(insideJsonString('{ "a": 1 }', 8)).toBe(false);
  });
});

describe("completion inside {{ }}", () => {
  const scope = sampleScope("greet", EDGES, RUN, new Map())!.scope;

  it("offers the roots, the nodes of the sample and their fields", () => {
    expect(completeTemplate("{{ ", 3, scope)!.options).toEqual([
      "input",
      "trigger",
      "nodes",
      "run",
      "item",
      "item_index",
    ]);
    expect(completeTemplate("Hi {{ nodes.lo", 14, scope)).toEqual({ from: 6, to: 14, options: ["nodes.lookup"] });
    // An editor that closed the braces as they were typed: the caret is still inside.
    expect(completeTemplate("{{ nodes.lo}}", 11, scope)!.options).toEqual(["nodes.lookup"]);
    expect(completeTemplate("{{ nodes.lookup.", 16, scope)!.options).toEqual([
      "nodes.lookup.customer",
      'nodes.lookup["page size"]',
    ]);
    expect(completeTemplate("{{ nodes.lookup.customer.tags", 29, scope)!.options).toEqual([]);
    expect(completeTemplate("{{ nodes.lookup.customer.tags[", 30, scope)!.options).toEqual([
      "nodes.lookup.customer.tags[0]",
    ]);
  });

  it("offers nothing outside an open {{", () => {
    expect(completeTemplate("{{ input }} and", 15, scope)).toBeNull();
    expect(completeTemplate("plain", 5, scope)).toBeNull();
  });
});

describe("the preview", () => {
  const scope = sampleScope("greet", EDGES, RUN, new Map())!.scope;
  const text = { type: "string", label: "Message" } as const;
  const json = { type: "json", label: "Value" } as const;

  it("renders with the worker's engine: a whole reference keeps its type, text joins", () => {
    expect(previewOf(text, '{{ input["page size"] }}', scope)).toEqual({ value: 20 });
    expect(previewOf(text, "Hi {{ nodes.lookup.customer.name }}", scope)).toEqual({ value: "Hi Ada" });
    expect(previewOf(json, '{ "who": "{{ input.customer.name }}" }', scope)).toEqual({ value: { who: "Ada" } });
  });

  it("reads a json field as a save does: a bare template is its value, broken JSON is an error", () => {
    expect(previewOf(json, '{{ input["page size"] }}', scope)).toEqual({ value: 20 });
    expect(previewOf(json, "  {{ input.customer }}\n", scope)).toEqual({ value: { name: "Ada", tags: ["vip"] } });
    const broken = previewOf(json, '{ "who": {{ input.customer.name }} }', scope);
    expect("error" in broken && broken.error).toMatch(
      /^Value is not valid JSON \(.*\); text with templates goes in quotes/,
    );
  });

  it("says what is missing or wrong", () => {
    expect(previewOf(text, "{{ input.nobody }}", scope)).toEqual({ missing: true });
    expect(previewOf(text, "{{ input.a", scope)).toEqual({ error: 'unclosed "{{" at position 0' });
    expect(previewOf(text, "{{ env.secret }}", scope)).toEqual({
      error: 'unknown root "env": use one of input, trigger, nodes, run, item, item_index',
    });
  });
});

describe("a completion picked in a text field", () => {
  it("replaces the path typed so far and closes the braces when they are not", async () => {
    const { applyCompletion } = await import("./template-field");
    const text = "Hi {{ nodes.lo";
    const completion = { from: 6, to: 14, options: ["nodes.lookup"] };
    expect(applyCompletion(text, completion, "nodes.lookup")).toBe("Hi {{ nodes.lookup }}");
    expect(applyCompletion("{{ nodes.lo }}!", { from: 3, to: 11, options: [] }, "nodes.lookup")).toBe(
      "{{ nodes.lookup }}!",
    );
    // Braces an editor closed as they were typed get their space.
    expect(applyCompletion("{{ nodes.lo}}", { from: 3, to: 11, options: [] }, "nodes.lookup")).toBe(
      "{{ nodes.lookup }}",
    );
  });
});
