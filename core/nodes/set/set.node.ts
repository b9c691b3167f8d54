import { z } from "zod";
import { defineNode } from "../define-node.js";
import { NodeError } from "../node-error.js";

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** "customer.name" → ["customer", "name"]; `\.` keeps a dot inside a key. */
export function splitPath(key: string): string[] {
  return key.split(/(?<!\\)\./).map((segment) => segment.replaceAll("\\.", "."));
}

const fieldKey = z
  .string()
  .min(1)
  .max(500)
  .refine((key) => splitPath(key).every((segment) => segment.length > 0), "must not have an empty part (a.b, not a..b)")
  .refine((key) => !splitPath(key).includes("__proto__"), "must not name __proto__");

/**
 * Sets each field on `target` in order, building objects along dotted paths; a later field wins.
 * A path through a value that is not an object fails: replacing data silently would hide mistakes.
 */
export function setFields(target: JsonObject, fields: JsonObject): JsonObject {
  for (const [key, value] of Object.entries(fields)) {
    const path = splitPath(key);
    let current = target;
    for (const [index, segment] of path.slice(0, -1).entries()) {
      const existing = Object.hasOwn(current, segment) ? current[segment] : undefined;
      if (existing === undefined || existing === null) {
        const created: JsonObject = {};
        current[segment] = created;
        current = created;
      } else if (isObject(existing)) {
        current = existing;
      } else {
        const at = path.slice(0, index + 1).join(".");
        throw new NodeError(`Cannot set "${key}": "${at}" is ${JSON.stringify(existing)}, not an object`, {
          retryable: false,
        });
      }
    }
    // A template that finds nothing renders as undefined: the field is still there, as null.
    current[path.at(-1)!] = value === undefined ? null : value;
  }
  return target;
}

export const setNode = defineNode({
  type: "set",
  version: 1,
  name: "Set",
  category: "data",
  description:
    "Outputs an object built from fields whose values may be {{ }} templates; dotted keys such as " +
    "customer.name build nested objects. With keep_input, the fields are set over a copy of the input object.",
  kind: "activity",
  execution: "local",
  pure: true,
  config: z.object({
    fields: z
      .record(fieldKey, z.unknown())
      .refine((fields) => Object.keys(fields).length <= 500, "at most 500 fields")
      .meta({ label: "Fields", placeholder: '{ "customer.name": "{{ input.name }}" }' }),
    keep_input: z.boolean().default(false).meta({ label: "Keep input fields" }),
  }),
  async execute(input, config) {
    let base: JsonObject = {};
    if (config.keep_input && input !== null && input !== undefined) {
      if (!isObject(input)) {
        const kind = Array.isArray(input) ? "an array" : `a ${typeof input}`;
        throw new NodeError(`keep_input needs an object as input, got ${kind}`, { retryable: false });
      }
      base = structuredClone(input);
    }
    return setFields(base, config.fields);
  },
});
