// The JSON Schema of an MCP tool's input (JSON Schema 2020-12, MCP's default): checked when a flow
// is saved, compiled once per schema, and applied to each call's arguments before a run starts.
// The schema is a flow author's and runs in the API process: its regular expressions (`pattern`,
// `patternProperties`) run on RE2 (re2js), in time linear in the text, never on the backtracking
// RegExp, where one like ^(a+)+$ would hold the event loop for minutes on 30 characters.
// RE2 has no backreferences nor lookarounds: a schema that uses them does not compile.
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import type { RegExpEngine } from "ajv/dist/types/index.js";
import { RE2JS } from "re2js";

const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    const compiled = RE2JS.compile(pattern);
    // Ajv keys its compiled patterns by toString(): the pattern's own text, as a RegExp's would be.
    return { test: (text: string) => compiled.test(text), toString: () => `re2:${pattern}` };
  },
  { code: "re2js" },
);

const ajv = new Ajv2020({
  strict: false,
  allErrors: false,
  validateFormats: false,
  code: { regExp: linearRegExp },
});
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
