// From a node's config_schema to form fields, and from what a person typed back to config values.
import type { ConfigField, ConfigSchema } from "../types";

export interface FormField extends ConfigField {
  key: string;
  /** What the field's control shows for the current config. */
  text: string;
  /** A value containing {{ }} is rendered at run time from earlier outputs. */
  templated: boolean;
}

const TEMPLATE = /\{\{.*\}\}/s;

/** The text a control shows for a value: JSON fields pretty-printed, strings as they are. */
export function textOf(field: ConfigField, value: unknown): string {
  if (value === undefined || value === null) return "";
  if (field.type === "json") return typeof value === "string" ? value : JSON.stringify(value, null, 2);
  return String(value);
}

/** The form's fields, in the schema's order, with the value of `config` (or the default). */
export function formFields(schema: ConfigSchema | undefined, config: Record<string, unknown>): FormField[] {
  return Object.entries(schema ?? {}).map(([key, field]) => {
    const value = key in config ? config[key] : field.default;
    const text = textOf(field, value);
    return { ...field, key, text, templated: TEMPLATE.test(text) || TEMPLATE.test(field.placeholder ?? "") };
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
      } catch {
        // A template such as {{ input.items }} is a string the run renders to any JSON value.
        if (TEMPLATE.test(text)) return { ok: true, value: text };
        return { ok: false, error: `${field.label} is not valid JSON` };
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
