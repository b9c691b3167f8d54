import { describe, expect, it } from "vitest";
import {
  findTemplates,
  MAX_RENDERED_BYTES,
  parseTemplate,
  renderString,
  renderValue,
  TemplateLimitError,
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

  describe("bounded by the render's budget, whatever the data or the template", () => {
    const MB = 1024 * 1024;
    // 1 MB of run data, as a node's output could be.
    const data = { text: "x".repeat(MB), list: Array.from({ length: 1000 }, (_, i) => i) };
    const big: TemplateScope = { ...scope, input: data };

    /** Runs `render` and returns what it threw, with how long it held the event loop. */
    function timed(render: () => unknown): { error: unknown; ms: number } {
      const started = performance.now();
      try {
        render();
        return { error: undefined, ms: performance.now() - started };
      } catch (error) {
        return { error, ms: performance.now() - started };
      }
    }

    it("takes a big value in whole as often as the budget allows, and refuses the same value named past it", () => {
      const fields = (count: number) =>
        Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, "{{ input }}"]));
      const rendered = renderValue({ fields: fields(20) }, big) as { fields: Record<string, unknown> };
      expect(rendered.fields.f19).toBe(data);
      // Without the budget this is 500 references to 1 MB: nothing to render, 500 MB for the next node to write.
      const { error, ms } = timed(() => renderValue({ fields: fields(500) }, big));
      expect(error).toBeInstanceOf(TemplateLimitError);
      expect((error as Error).message).toBe(
        `its templates render to more than ${MAX_RENDERED_BYTES / MB} MB of data (each use of a value counts its whole size)`,
      );
      expect(ms).toBeLessThan(1000);
    });

    it("stops writing text at the budget: a template that would write 1 MB two thousand times", () => {
      const { error, ms } = timed(() => renderString("{{ input.text }}-".repeat(2000), big));
      expect(error).toBeInstanceOf(TemplateLimitError);
      expect(ms).toBeLessThan(1000);
      expect(() => renderString("{{ input.list }}".repeat(2000), big, MB)).toThrow(TemplateLimitError);
      expect(renderString("{{ input.list }}".repeat(3), big)).toHaveLength(3 * JSON.stringify(data.list).length);
    });

    it("measures deep values without recursion, and refuses to write as text what JSON cannot", () => {
      let deep: unknown = "leaf";
      for (let i = 0; i < 200_000; i++) deep = [deep];
      const deepScope: TemplateScope = { ...scope, input: deep };
      expect(renderString("{{ input }}", deepScope)).toBe(deep);
      expect(() => renderString("as text: {{ input }}", deepScope)).toThrow(TemplateLimitError);
    });

    it("parses and looks up a pathological template in time linear in its text", () => {
      // 1 MB of config text: a path of 200,000 segments, then 50,000 short templates.
      const longPath = `{{ input${".a".repeat(200_000)} }}`;
      const many = "{{ input.list[7] }},".repeat(50_000);
      const { error, ms } = timed(() => {
        expect(renderString(longPath, big)).toBeUndefined();
        expect(renderString(many, big)).toBe("7,".repeat(50_000));
      });
      expect(error).toBeUndefined();
      expect(ms).toBeLessThan(1000);
    });
  });
});
