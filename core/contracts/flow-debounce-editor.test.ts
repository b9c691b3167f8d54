// The editor's debounce check (web/src/components/debounce-row.ts) held to the server's
// (flowDebounceSchema): the same bounds, and every row here refused by both, naming the same
// field, or taken by both.
import { describe, expect, it } from "vitest";
import { DEBOUNCE_LIMITS, debounceProblem, withDebounce } from "../../web/src/components/debounce-row.js";
import { FLOW_LIMITS, flowDebounceSchema } from "./flow-definition.js";

describe("the editor's debounce check", () => {
  it("refuses what the server refuses, naming the field, and takes what it takes", () => {
    expect(DEBOUNCE_LIMITS).toEqual({
      minPeriodMs: FLOW_LIMITS.minDebouncePeriodMs,
      maxPeriodMs: FLOW_LIMITS.maxDebouncePeriodMs,
      maxWaitPeriods: FLOW_LIMITS.maxDebounceWaitPeriods,
      maxWaitMs: FLOW_LIMITS.maxDebounceWaitMs,
      maxKeyTemplate: FLOW_LIMITS.maxConcurrencyKeyTemplate,
    });
    const rows = [
      { periodMs: "100", key: "", maxWaitMs: "" },
      { periodMs: "99", key: "", maxWaitMs: "" },
      { periodMs: "3600000", key: "", maxWaitMs: "" },
      { periodMs: "3600001", key: "", maxWaitMs: "" },
      { periodMs: "150.5", key: "", maxWaitMs: "" },
      { periodMs: "1000", key: "{{ input.c }}", maxWaitMs: "1000" },
      { periodMs: "1000", key: "", maxWaitMs: "999" },
      { periodMs: "1000", key: "", maxWaitMs: "100000" },
      { periodMs: "1000", key: "", maxWaitMs: "100001" },
      { periodMs: "3600000", key: "", maxWaitMs: "86400000" },
      { periodMs: "3600000", key: "", maxWaitMs: "86400001" },
      { periodMs: "1000", key: "x".repeat(501), maxWaitMs: "" },
    ];
    for (const row of rows) {
      const server = flowDebounceSchema.safeParse((withDebounce({}, row) as { debounce: unknown }).debounce);
      const problem = debounceProblem(row);
      expect(problem === null, `${JSON.stringify(row).slice(0, 80)}: ${problem}`).toBe(server.success);
      if (!server.success) expect(problem).toMatch(`debounce.${server.error.issues[0]!.path.join(".")}:`);
    }
    expect(debounceProblem({ periodMs: "", key: "", maxWaitMs: "5" })).toBeNull();
  });
});
