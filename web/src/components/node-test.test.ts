import { describe, expect, it } from "vitest";
import { parseSampleInput } from "./node-test";

describe("a node test's sample input", () => {
  it("is a JSON value, null when empty, or says why it is not JSON", () => {
    expect(parseSampleInput('{"rows": [1]}')).toEqual({ value: { rows: [1] } });
    expect(parseSampleInput("[1, 2]")).toEqual({ value: [1, 2] });
    expect(parseSampleInput("  ")).toEqual({ value: null });
    expect(parseSampleInput("{ rows")).toEqual({ problem: expect.stringMatching(/^Sample input: not JSON/) });
  });
});
