// The config forms, generated from the catalog's real node schemas (rendered to static markup: no DOM needed).
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { CatalogEntry, ConfigField, ConfigSchema, Credential } from "../types";
import { defaultConfig, formFields, parseFieldInput } from "./config-fields";
import { ConfigForm } from "./config-form";

interface Registry {
  catalog(): CatalogEntry[];
  get(
    type: string,
  ): { config: { safeParse(value: unknown): { success: boolean; error?: { issues: unknown[] } } } } | undefined;
}
// The real node declarations (core/nodes). Imported by a computed path: that code is typed
// for Node, and the dashboard's type program (DOM) must not check it.
const nodesDir = "../../../core/nodes";
const { builtinNodes } = (await import(`${nodesDir}/index.js`)) as { builtinNodes: unknown[] };
const { createNodeRegistry } = (await import(`${nodesDir}/registry.js`)) as {
  createNodeRegistry: (nodes: unknown[]) => Registry;
};
const registry = createNodeRegistry(builtinNodes);
const catalog = registry.catalog();
const entry = (type: string) => catalog.find((e) => e.type === type)!;

function render(schema: ConfigSchema | undefined, config: Record<string, unknown>, problems?: Record<string, string>) {
  return renderToStaticMarkup(createElement(ConfigForm, { schema, config, problems, onChange: () => undefined }));
}

/** The markup of one field's wrapper, from its label to the next field. */
function fieldMarkup(html: string, key: string): string {
  const start = html.indexOf(`for="field-${key}"`);
  expect(start, `field ${key} is rendered`).toBeGreaterThan(-1);
  const next = html.indexOf('<div class="field ', start);
  return html.slice(start, next === -1 ? undefined : next);
}

const escapeHtml = (text: string) =>
  text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#x27;");

describe("config forms from the node catalog", () => {
  const withFields = catalog.filter((e) => Object.keys(e.config_schema ?? {}).length > 0);

  it("the catalog has nodes with every field type", () => {
    const types = new Set(withFields.flatMap((e) => Object.values(e.config_schema!).map((f) => f.type)));
    expect([...types].sort()).toEqual(["boolean", "code", "json", "number", "string"]);
  });

  it.each(withFields.map((e) => [e.type, e] as const))(
    "%s: one control per field, of the field's type",
    (_type, node) => {
      const schema = node.config_schema!;
      const html = render(schema, defaultConfig(schema));
      for (const [key, field] of Object.entries(schema) as Array<[string, ConfigField]>) {
        const markup = fieldMarkup(html, key);
        expect(markup).toContain(escapeHtml(field.label));
        expect(markup.includes('class="required"'), `${key} required marker`).toBe(field.required === true);
        if (field.type === "boolean") {
          expect(markup).toContain('type="checkbox"');
          expect(markup.includes("checked"), `${key} checked`).toBe(field.default === true);
        } else if (key === "mcp_servers") {
          // An agent's MCP servers: a list editor (see the test below), not JSON.
          expect(markup).toContain(`<div id="field-${key}" data-field="${key}">`);
          expect(markup).toContain("Add MCP server</button>");
        } else if (field.type === "json" || field.type === "code") {
          expect(markup).toContain(`data-field="${key}" data-type="${field.type}"`);
        } else if (field.credential_types) {
          // A picker of the workspace's credentials of those types (none passed here: only "(none)").
          expect(markup).toContain(
            `<select id="field-${key}" data-credential-types="${field.credential_types.join(",")}"`,
          );
          expect(markup).toContain('<option value="" selected="">(none)</option>');
        } else if (field.options) {
          expect(markup).toContain(`<select id="field-${key}"`);
          for (const option of field.options) expect(markup).toContain(`<option value="${option}"`);
          if (field.default !== undefined)
            expect(markup).toContain(`<option value="${String(field.default)}" selected=""`);
        } else if (field.type === "number") {
          expect(markup).toContain('type="number"');
          if (field.default !== undefined) expect(markup).toContain(`value="${escapeHtml(String(field.default))}"`);
          if (field.placeholder) expect(markup).toContain(`placeholder="${escapeHtml(field.placeholder)}"`);
        } else {
          // Text wraps: a textarea of one line that grows with what it holds.
          expect(markup).toContain(`<textarea id="field-${key}" class="text-field" rows="1"`);
          if (field.default !== undefined) expect(markup).toContain(`>${escapeHtml(String(field.default))}</textarea>`);
          if (field.placeholder) expect(markup).toContain(`placeholder="${escapeHtml(field.placeholder)}"`);
        }
      }
    },
  );

  it("a node without settings says so", () => {
    expect(render(entry("manual").config_schema, {})).toContain("This node has no settings.");
  });

  it("shows the templating hint where a field takes {{ }} templates, and not elsewhere", () => {
    expect(render(entry("http_request").config_schema, {})).toContain("{{ input.field }}");
    expect(render(entry("merge").config_schema, {})).not.toContain("{{ input.field }}");
  });

  it("shows the current config, JSON pretty-printed, and the API's problems on their fields", () => {
    const schema = entry("http_request").config_schema!;
    const html = render(
      schema,
      { method: "POST", url: "https://api.example.com/x", headers: { "X-Key": "1" }, follow_redirects: false },
      { url: "must be an absolute URL" },
    );
    expect(fieldMarkup(html, "method")).toContain('<option value="POST" selected=""');
    expect(fieldMarkup(html, "follow_redirects")).not.toContain("checked");
    expect(fieldMarkup(html, "headers")).toContain(escapeHtml('{\n  "X-Key": "1"\n}'));
    const url = fieldMarkup(html, "url");
    expect(url).toContain('role="alert">must be an absolute URL');
    expect(html).toContain('class="field field-string invalid"');
    expect(fieldMarkup(html, "method")).not.toContain('role="alert"');
  });
});

describe("an ai.agent node's MCP servers", () => {
  it("shows each server's URL, label, credential picker (of the types a server takes) and tool lists", () => {
    const credential = (id: string, name: string, type: string) =>
      ({ id, name, type, hint: null }) as unknown as Credential;
    const html = renderToStaticMarkup(
      createElement(ConfigForm, {
        schema: entry("ai.agent").config_schema,
        config: {
          instructions: "Stamp it",
          mcp_servers: [
            {
              url: "https://tools.example.com/mcp",
              label: "desk",
              credential_id: "cred_b",
              tools: ["stamp", "file"],
              approval_tools: ["file"],
            },
          ],
        },
        credentials: [credential("cred_a", "Model key", "ai_provider"), credential("cred_b", "Desk", "bearer")],
        onChange: () => undefined,
      }),
    );
    const markup = fieldMarkup(html, "mcp_servers");
    expect(markup).toContain('value="https://tools.example.com/mcp"');
    expect(markup).toContain('value="desk"');
    expect(markup).toContain('<option value="cred_b" selected="">Desk (bearer)</option>');
    expect(markup).not.toContain("Model key");
    expect(markup).toContain('value="stamp, file"');
    expect(markup).toContain('id="field-mcp_servers-0-approval" value="file"');
    expect(markup).toContain("Remove MCP server 1</button>");
  });
});

describe("the API's problems as the form's errors", () => {
  it("land on CodeMirror and checkbox fields as on text fields, and only there", () => {
    const schema = entry("http_request").config_schema!;
    const html = render(schema, defaultConfig(schema), {
      headers: "must be an object",
      follow_redirects: "must be a boolean",
    });
    expect(fieldMarkup(html, "headers")).toContain('role="alert">must be an object');
    expect(html).toContain('class="field field-json invalid"');
    expect(fieldMarkup(html, "follow_redirects")).toContain('role="alert">must be a boolean');
    expect(html.match(/role="alert"/g)).toHaveLength(2);
  });
});

describe("typed text to config values", () => {
  const field = (type: ConfigField["type"], extra: Partial<ConfigField> = {}): ConfigField => ({
    type,
    label: "Value",
    ...extra,
  });

  it("numbers, booleans, JSON, templates and empties", () => {
    expect(parseFieldInput(field("number"), "42")).toEqual({ ok: true, value: 42 });
    expect(parseFieldInput(field("number"), "4x")).toEqual({ ok: false, error: "Value must be a number" });
    expect(parseFieldInput(field("boolean"), "true")).toEqual({ ok: true, value: true });
    expect(parseFieldInput(field("json"), '{"a": [1, 2]}')).toEqual({ ok: true, value: { a: [1, 2] } });
    expect(parseFieldInput(field("json"), "{a: 1}")).toEqual({
      ok: false,
      error: "Value is not valid JSON (Expected property name or '}')",
    });
    // A bare template is a value (any type, rendered by the run); text around templates is not JSON.
    expect(parseFieldInput(field("json"), " {{ input.items }}\n")).toEqual({ ok: true, value: "{{ input.items }}" });
    const mixed = parseFieldInput(field("json"), '{ "amount": {{ input.amount }} }');
    expect(mixed.ok).toBe(false);
    expect(!mixed.ok && mixed.error).toContain('text with templates goes in quotes: "Total: {{ input.total }}"');
    expect(parseFieldInput(field("json"), "Total: {{ input.total }}").ok).toBe(false);
    expect(parseFieldInput(field("json"), '"Total: {{ input.total }}"')).toEqual({
      ok: true,
      value: "Total: {{ input.total }}",
    });
    expect(parseFieldInput(field("string"), "")).toEqual({ ok: true, value: undefined });
    expect(parseFieldInput(field("string", { required: true }), " ")).toEqual({
      ok: false,
      error: "Value is required",
    });
    expect(parseFieldInput(field("code"), "return 1;")).toEqual({ ok: true, value: "return 1;" });
  });

  // What the form produces is what the node accepts: defaults plus typed values pass the node's own schema.
  it.each([
    [
      "http_request",
      { url: "https://api.example.com/orders", headers: '{ "Accept": "application/json" }', timeout_ms: "5000" },
    ],
    ["set", { fields: '{ "customer.name": "{{ input.name }}" }', keep_input: "true" }],
    ["log", { message: "Order {{ input.id }}", data: "{{ input }}" }],
    ["code", { code: "return { n: input.items.length };", time_limit_ms: "500" }],
    ["condition", { left: "{{ input.status }}", right: "200" }],
    ["transform", { expression: "$sum(items.price)" }],
  ] as const)("%s: a filled-in form is a valid config", (type, typed) => {
    const schema = entry(type).config_schema!;
    const config = defaultConfig(schema);
    for (const [key, text] of Object.entries(typed)) {
      const parsed = parseFieldInput(schema[key]!, text);
      expect(parsed.ok, `${type}.${key}`).toBe(true);
      if (parsed.ok) config[key] = parsed.value;
    }
    const result = registry.get(type)!.config.safeParse(config);
    expect(result.success, JSON.stringify(result.error?.issues)).toBe(true);
    // And the form shows back what was typed.
    const shown = Object.fromEntries(formFields(schema, config).map((f) => [f.key, f.text]));
    for (const [key, text] of Object.entries(typed)) {
      if (schema[key]!.type !== "json") expect(shown[key]).toBe(text);
    }
  });

  it("shows a json field's value so that reading it back gives the same value", () => {
    const schema = entry("condition").config_schema!;
    for (const value of ["{{ input.status }}", "open", "Total: {{ input.total }}", 200, { a: "{{ input.a }}" }]) {
      const [left] = formFields(schema, { left: value });
      expect(parseFieldInput(schema.left!, left!.text), JSON.stringify(value)).toEqual({ ok: true, value });
    }
  });

  it("an empty required field is refused by the node's schema too (the API reports it)", () => {
    const config = defaultConfig(entry("http_request").config_schema);
    expect(registry.get("http_request")!.config.safeParse(config).success).toBe(false);
  });
});
