import { describe, expect, it } from "vitest";
import { scheduleFireInput, startsWithSchedule } from "./schedule-fire";

describe("a schedule's test fire", () => {
  it("gives a fire's input at the time asked, with the fire's id as a real fire gives it", () => {
    const now = new Date("2026-11-29T08:40:00.250Z");
    expect(scheduleFireInput("wf_1a2b", now)).toEqual({
      scheduled_at: "2026-11-29T08:40:00.250Z",
      fired_at: "2026-11-29T08:40:00.250Z",
      schedule_id: "scheduled-wf_1a2b-2026-11-29T08:40:00Z",
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
