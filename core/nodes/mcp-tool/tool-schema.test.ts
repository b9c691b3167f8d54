// A tool's input schema, as the flow's author wrote it, applied to a call's arguments in the API
// process: its checks, and its regular expressions in linear time.
import { describe, expect, it } from "vitest";
import { mcpToolConfig } from "./mcp-tool.node.js";
import { argumentProblems, compileToolSchema } from "./tool-schema.js";

describe("a tool's input schema", () => {
  it("names each problem of the arguments, and none of good ones", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "number" }, code: { type: "string", pattern: "^[A-Z]{3}-\\d+$" } },
      required: ["a"],
      additionalProperties: false,
    };
    expect(argumentProblems(schema, { a: 1, code: "ABC-12" })).toEqual([]);
    expect(argumentProblems(schema, { a: "one" })).toEqual(["/a must be number"]);
    expect(argumentProblems(schema, { a: 1, code: "abc-12" })).toEqual(['/code must match pattern "^[A-Z]{3}-\\d+$"']);
    expect(argumentProblems(schema, {})).toEqual(["(arguments) must have required property 'a'"]);
  });

  it("runs a pattern that backtracks exponentially in linear time", () => {
    // On JavaScript's RegExp this takes seconds at 26 characters and doubles with each one more.
    const schema = { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } };
    const started = performance.now();
    const problems = argumentProblems(schema, { s: `${"a".repeat(5000)}!` });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(problems).toEqual(['/s must match pattern "^(a+)+$"']);
    expect(
      argumentProblems(
        { type: "object", patternProperties: { "^(x+)+$": { type: "number" } } },
        {
          [`${"x".repeat(5000)}y`]: "any",
        },
      ),
    ).toEqual([]);
  });

  it("is refused when saved with what RE2 lacks (backreferences, lookarounds) or when it is no schema", () => {
    expect(compileToolSchema({ type: "object", properties: { s: { type: "string", pattern: "(a)\\1" } } })).toEqual({
      error: expect.stringMatching(/invalid escape sequence/),
    });
    const saved = (input_schema: object) => mcpToolConfig.safeParse({ name: "t", input_schema });
    expect(saved({ type: "object", properties: { s: { type: "string", pattern: "(?=a)" } } }).error?.message).toMatch(
      /is not a JSON Schema: .*unsupported Perl syntax/,
    );
    expect(saved({ type: "object", properties: { n: { type: "nonsense" } } }).success).toBe(false);
    expect(saved({ type: "array" }).success).toBe(false);
    expect(saved({ type: "object", properties: { s: { type: "string", pattern: "^a+$" } } }).success).toBe(true);
  });
});
