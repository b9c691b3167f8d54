// The editor's flow control fields to the definition's concurrency, throttle and priority, and back.
import { describe, expect, it } from "vitest";
import { flowControlRow, withFlowControl } from "./flow-control";

const empty = {
  concurrencyLimit: "",
  concurrencyKey: "",
  throttleLimit: "",
  throttleSeconds: "",
  throttleKey: "",
  priority: "",
};

describe("flow control fields", () => {
  it("write each setting typed, the throttle's seconds as milliseconds, and keep the other settings", () => {
    const settings = { error_flow_id: "wf_x", concurrency: { limit: 9 } };
    const row = {
      concurrencyLimit: "3",
      concurrencyKey: " {{ input.customer }} ",
      throttleLimit: "10",
      throttleSeconds: "1.5",
      throttleKey: "{{ input.customer }}",
      priority: "1",
    };
    expect(withFlowControl(settings, row)).toEqual({
      error_flow_id: "wf_x",
      concurrency: { limit: 3, key: "{{ input.customer }}" },
      throttle: { limit: 10, period_ms: 1500, key: "{{ input.customer }}" },
      priority: 1,
    });
  });

  it("remove a setting whose fields were emptied, and a throttle without its period", () => {
    const settings = { concurrency: { limit: 2 }, throttle: { limit: 1, period_ms: 1000 }, priority: 5 };
    expect(withFlowControl(settings, { ...empty, throttleLimit: "4" })).toEqual({});
  });

  it("write a priority typed as a template as text, and read it back", () => {
    const written = withFlowControl({}, { ...empty, priority: " {{ input.tier_priority }} " });
    expect(written).toEqual({ priority: "{{ input.tier_priority }}" });
    expect(flowControlRow(written).priority).toBe("{{ input.tier_priority }}");
    expect(withFlowControl({}, { ...empty, priority: "4" })).toEqual({ priority: 4 });
  });

  it("read back what they wrote", () => {
    const settings = {
      concurrency: { limit: 3, key: "{{ input.c }}" },
      throttle: { limit: 10, period_ms: 60000 },
      priority: 2,
    };
    expect(flowControlRow(settings)).toEqual({
      concurrencyLimit: "3",
      concurrencyKey: "{{ input.c }}",
      throttleLimit: "10",
      throttleSeconds: "60",
      throttleKey: "",
      priority: "2",
    });
    expect(withFlowControl({}, flowControlRow(settings))).toEqual(settings);
    expect(flowControlRow({})).toEqual(empty);
  });
});
