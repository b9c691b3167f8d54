import { describe, expect, it } from "vitest";
import { scheduleFireInput, startsWithSchedule } from "./schedule-fire";

describe("a schedule's test fire", () => {
  it("gives a fire's input at the time asked, with the flow's schedule id", () => {
    const now = new Date("2026-11-29T08:40:00.000Z");
    expect(scheduleFireInput("wf_1a2b", now)).toEqual({
      scheduled_at: "2026-11-29T08:40:00.000Z",
      fired_at: "2026-11-29T08:40:00.000Z",
      schedule_id: "flow-wf_1a2b",
    });
  });

  it("is offered only for a draft that starts with a schedule", () => {
    const set = { id: "set", type: "set", config: {} };
    const scheduled = {
      nodes: [{ id: "tick", type: "schedule", config: { interval: "1h" } }, set],
      edges: [{ from: "tick", to: "set" }],
    };
    const manual = { nodes: [{ id: "start", type: "manual", config: {} }, set], edges: [{ from: "start", to: "set" }] };
    expect(startsWithSchedule(scheduled)).toBe(true);
    expect(startsWithSchedule(manual)).toBe(false);
    expect(startsWithSchedule({ nodes: [], edges: [] })).toBe(false);
  });
});
