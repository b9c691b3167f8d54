// The JSON Schema of an MCP tool's input (JSON Schema 2020-12, MCP's default): checked when a flow
// is saved, compiled once per schema, and applied to each call's arguments before a run starts.
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
// Compiled validators by the schema's text: a workspace's tools are few, and their schemas change
// only with a new flow version. Bounded, so that many distinct schemas cannot grow it without end.
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 500;

/** The validator of a schema, or the reason it is not one (undefined errors: a valid schema). */
export function compileToolSchema(schema: object): { validate: ValidateFunction } | { error: string } {
  const key = JSON.stringify(schema);
  const known = compiled.get(key);
  if (known) return { validate: known };
  try {
    const validate = ajv.compile(schema);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, validate);
    return { validate };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** The arguments' problems against the schema, in words a model can act on (empty: valid). */
export function argumentProblems(schema: object, args: unknown): string[] {
  const outcome = compileToolSchema(schema);
  if ("error" in outcome) return [`the tool's input schema does not compile: ${outcome.error}`];
  if (outcome.validate(args)) return [];
  return (outcome.validate.errors ?? [])
    .slice(0, 10)
    .map((e) => `${e.instancePath || "(arguments)"} ${e.message ?? "is invalid"}`);
}
