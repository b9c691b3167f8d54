// From a node's config_schema to form fields, and from what a person typed back to config values.
import type { ConfigField, ConfigSchema } from "../types";

export interface FormField extends ConfigField {
  key: string;
  /** What the field's control shows for the current config. */
  text: string;
  /** The field may hold {{ }} templates, rendered at run time (text and json; not code, a choice or a credential). */
  templated: boolean;
}

const TEMPLATE = /\{\{.*\}\}/s;
/** A bare template fills a whole field: `{{ nodes.fetch.body }}`, and nothing else. */
export const BARE_TEMPLATE = /^\s*\{\{[^{}]*\}\}\s*$/;

/**
 * The text a control shows for a value: JSON fields pretty-printed (a string in quotes, but for a
 * bare template, which stands for the value it reads), strings as they are. Reading the text back
 * (parseFieldInput) gives the value again.
 */
export function textOf(field: ConfigField, value: unknown): string {
  if (value === undefined || value === null) return "";
  if (field.type === "json") {
    if (typeof value === "string" && BARE_TEMPLATE.test(value)) return value.trim();
    return JSON.stringify(value, null, 2);
  }
  return String(value);
}

/** Whether a field can hold templates: what the engine renders (code and credentials it takes literally). */
const canHoldTemplates = (field: ConfigField) =>
  field.type === "json" || (field.type === "string" && !field.options && !field.credential_types);

/** The form's fields, in the schema's order, with the value of `config` (or the default). */
export function formFields(schema: ConfigSchema | undefined, config: Record<string, unknown>): FormField[] {
  return Object.entries(schema ?? {}).map(([key, field]) => {
    const value = key in config ? config[key] : field.default;
    const text = textOf(field, value);
    return { ...field, key, text, templated: canHoldTemplates(field) };
  });
}

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

/** What typed text means for a field: a value to store (undefined removes the key), or why not. */
export function parseFieldInput(field: ConfigField, text: string): Parsed {
  if (text.trim() === "" && field.type !== "boolean") {
    return field.required ? { ok: false, error: `${field.label} is required` } : { ok: true, value: undefined };
  }
  switch (field.type) {
    case "number": {
      const value = Number(text);
      return Number.isFinite(value) ? { ok: true, value } : { ok: false, error: `${field.label} must be a number` };
    }
    case "boolean":
      return { ok: true, value: text === "true" };
    case "json":
      try {
        return { ok: true, value: JSON.parse(text) as unknown };
      } catch (error) {
        // A bare template such as {{ input.items }} is a value: the run renders it to any JSON value.
        if (BARE_TEMPLATE.test(text)) return { ok: true, value: text.trim() };
        const why = (error as Error).message.replace(/ in JSON at position.*$/, "");
        const hint = TEMPLATE.test(text) ? '; text with templates goes in quotes: "Total: {{ input.total }}"' : "";
        return { ok: false, error: `${field.label} is not valid JSON (${why})${hint}` };
      }
    default:
      return { ok: true, value: text };
  }
}

/** The config a newly dropped node starts with: the schema's defaults. */
export function defaultConfig(schema: ConfigSchema | undefined): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(schema ?? {})
      .filter(([, field]) => field.default !== undefined)
      .map(([key, field]) => [key, field.default]),
  );
}
