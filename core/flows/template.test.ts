import { describe, expect, it } from "vitest";
import {
  findTemplates,
  parseTemplate,
  renderString,
  renderValue,
  TemplateSyntaxError,
  type TemplateScope,
} from "./template.js";

const scope: TemplateScope = {
  input: { user: { id: 7, name: "Ada", tags: ["a", "b"] }, "page size": 50 },
  trigger: { query: { q: "hello" } },
  nodes: { fetch: { status: 200, body: { items: [{ id: "x1" }, { id: "x2" }] } } },
  run: { id: "run_1" },
};

describe("templates", () => {
  it("keeps the type of a value when the string is exactly one reference", () => {
    expect(renderString("{{ input.user.id }}", scope)).toBe(7);
    expect(renderString("{{input.user}}", scope)).toEqual({ id: 7, name: "Ada", tags: ["a", "b"] });
    expect(renderString("{{ nodes.fetch.body.items[1].id }}", scope)).toBe("x2");
    expect(renderString('{{ input["page size"] }}', scope)).toBe(50);
    expect(renderString("{{ input.missing.deeper }}", scope)).toBeUndefined();
  });

  it("joins references into text, objects as JSON and missing values as empty", () => {
    expect(renderString("Hello {{ input.user.name }} ({{ input.user.id }})", scope)).toBe("Hello Ada (7)");
    expect(renderString("tags={{ input.user.tags }}", scope)).toBe('tags=["a","b"]');
    expect(renderString("[{{ input.nope }}]", scope)).toBe("[]");
    expect(renderString("run {{ run.id }} for {{ trigger.query.q }}", scope)).toBe("run run_1 for hello");
  });

  it("renders nested config values and drops fields whose whole value is missing", () => {
    expect(
      renderValue({ body: { id: "{{ input.user.id }}", gone: "{{ input.none }}" }, list: ["{{ run.id }}"] }, scope),
    ).toEqual({
      body: { id: 7 },
      list: ["run_1"],
    });
  });

  it("writes \\{{ as a literal", () => {
    expect(renderString("\\{{ not a template }}", scope)).toBe("{{ not a template }}");
  });

  it("reaches only own properties of plain data", () => {
    for (const path of [
      "input.constructor",
      "input.__proto__",
      "input.user.toString",
      "input.user.tags.length",
      "nodes.hasOwnProperty",
    ]) {
      expect(renderString(`{{ ${path} }}`, scope)).toBeUndefined();
    }
  });

  it.each([
    ["{{ input.a", /unclosed/],
    ["{{ process.env }}", /unknown root "process"/],
    ["{{ input.a + 1 }}", /cannot read/],
    ["{{ input.a() }}", /cannot read/],
    ["{{ }}", /must start with/],
    ["{{ input[a] }}", /cannot read/],
  ])("refuses %s", (text, message) => {
    expect(() => parseTemplate(text)).toThrow(TemplateSyntaxError);
    expect(() => parseTemplate(text)).toThrow(message);
  });

  it("finds templates with their location, paths and errors", () => {
    const findings = findTemplates({ url: "https://x/{{ nodes.a.id }}", list: [1, "{{ bad"], plain: "no" });
    expect(findings).toEqual([
      { at: ["url"], paths: [["nodes", "a", "id"]] },
      { at: ["list", 1], paths: [], error: expect.stringMatching(/unclosed/) },
    ]);
  });
});
