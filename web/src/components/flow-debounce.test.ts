// The editor's debounce fields to the definition's debounce and back, and what their check names
// (held to the server's own in core/contracts/flow-debounce-editor.test.ts).
import { describe, expect, it } from "vitest";
import { debounceProblem, debounceRow, withDebounce } from "./debounce-row";

describe("debounce fields", () => {
  it("write the period, key and longest wait typed, keep the other settings, and drop a debounce without a period", () => {
    const settings = { concurrency: { limit: 2 }, debounce: { period_ms: 5000 } };
    expect(withDebounce(settings, { periodMs: "1000", key: " {{ input.customer }} ", maxWaitMs: "4000" })).toEqual({
      concurrency: { limit: 2 },
      debounce: { period_ms: 1000, key: "{{ input.customer }}", max_wait_ms: 4000 },
    });
    expect(withDebounce(settings, { periodMs: "", key: "{{ input.c }}", maxWaitMs: "" })).toEqual({
      concurrency: { limit: 2 },
    });
  });

  it("read back what they wrote", () => {
    const settings = { debounce: { period_ms: 250, key: "{{ input.c }}", max_wait_ms: 2500 } };
    expect(debounceRow(settings)).toEqual({ periodMs: "250", key: "{{ input.c }}", maxWaitMs: "2500" });
    expect(withDebounce({}, debounceRow(settings))).toEqual(settings);
    expect(debounceRow({})).toEqual({ periodMs: "", key: "", maxWaitMs: "" });
  });

  it("name the field the server would refuse", () => {
    expect(debounceProblem({ periodMs: "99", key: "", maxWaitMs: "" })).toMatch(/^debounce\.period_ms: /);
    expect(debounceProblem({ periodMs: "1000", key: "", maxWaitMs: "999" })).toMatch(/^debounce\.max_wait_ms: /);
    expect(debounceProblem({ periodMs: "1000", key: "x".repeat(501), maxWaitMs: "" })).toMatch(/^debounce\.key: /);
    expect(debounceProblem({ periodMs: "1000", key: "{{ input.c }}", maxWaitMs: "100000" })).toBeNull();
    expect(debounceProblem({ periodMs: "", key: "", maxWaitMs: "5" })).toBeNull();
  });
});
