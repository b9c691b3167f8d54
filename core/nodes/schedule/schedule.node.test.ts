import { describe, expect, it } from "vitest";
import { cronProblem, isTimeZone, scheduleConfig } from "./schedule.node.js";

describe("schedule trigger", () => {
  it("takes a cron expression or an interval, with defaults for time zone, overlap and catch-up", () => {
    expect(scheduleConfig.parse({ cron: "30 9 * * 1-5" })).toEqual({
      cron: "30 9 * * 1-5",
      timezone: "UTC",
      overlap: "skip",
      catchup_window: "1m",
    });
    expect(scheduleConfig.parse({ interval: "15m", timezone: "Europe/Paris" })).toMatchObject({ interval: "15m" });
  });

  it("wants exactly one of cron and interval", () => {
    expect(scheduleConfig.safeParse({}).success).toBe(false);
    expect(scheduleConfig.safeParse({ cron: "@daily", interval: "1h" }).success).toBe(false);
  });

  it("names what is wrong with a cron expression", () => {
    expect(cronProblem("@hourly")).toBeUndefined();
    expect(cronProblem("* * * *")).toMatch(/must have 5 fields/);
    expect(cronProblem("0 0 1 * 1")).toMatch(/both day-of-month and day-of-week/);
    expect(cronProblem("61 * * * *")).toBeDefined();
  });

  it("refuses unknown time zones and out-of-range intervals", () => {
    expect(isTimeZone("America/New_York")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
    expect(scheduleConfig.safeParse({ interval: "500ms" }).success).toBe(false);
    expect(scheduleConfig.safeParse({ interval: "400d" }).success).toBe(false);
    expect(scheduleConfig.safeParse({ cron: "@daily", overlap: "queue" }).success).toBe(false);
  });
});
