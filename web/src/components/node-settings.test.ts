import { describe, expect, it } from "vitest";
import { handledFailure, settingsForm, settingsOf, withSettings } from "./node-settings";

describe("node settings", () => {
  it("reads timeout_ms, retry and on_error as the form's keys, and writes them back nested", () => {
    const extra = { notes: "kept", timeout_ms: 500, retry: { max_attempts: 2 }, on_error: "branch" };
    expect(settingsOf(extra)).toEqual({ timeout_ms: 500, retry__max_attempts: 2, on_error: "branch" });
    expect(
      withSettings(extra, { retry__max_attempts: 3, retry__initial_interval_ms: 100, on_error: "continue" }),
    ).toEqual({
      notes: "kept",
      retry: { max_attempts: 3, initial_interval_ms: 100 },
      on_error: "continue",
    });
  });

  it("reads and writes the items setting as a group, kept only with an array to run over", () => {
    const extra = { items: { from: "{{ input.rows }}", concurrency: 4 } };
    expect(settingsOf(extra)).toEqual({ items__from: "{{ input.rows }}", items__concurrency: 4 });
    expect(withSettings(extra, { items__from: "{{ input.list }}", items__on_error: "skip" })).toEqual({
      items: { from: "{{ input.list }}", on_error: "skip" },
    });
    expect(withSettings(extra, { items__from: "", items__concurrency: 4 })).toEqual({});
  });

  it("gives the form keys without dots", () => {
    const field = { type: "number" as const, label: "Attempts", default: 3 };
    expect(settingsForm({ "retry.max_attempts": field, timeout_ms: field })).toEqual({
      retry__max_attempts: field,
      timeout_ms: field,
    });
  });

  it("leaves out what is empty or the default", () => {
    expect(withSettings({ retry: { max_attempts: 2 }, on_error: "branch" }, { on_error: "stop" })).toEqual({});
  });

  it("tells a handled failure from a failure", () => {
    expect(handledFailure({ status: "failed", error: { message: "x", handled: "branch" } })).toBe("branch");
    expect(handledFailure({ status: "failed", error: { message: "x" } })).toBeNull();
    expect(handledFailure({ status: "success", error: null })).toBeNull();
  });
});
