import { describe, expect, it } from "vitest";
import { delayNode } from "./delay.node.js";

describe("delay node", () => {
  it("waits for its duration, in milliseconds", () => {
    const waitOf = (duration: string) => delayNode.waitMs!(delayNode.config.parse({ duration }));
    expect(waitOf("500ms")).toBe(500);
    expect(waitOf("30s")).toBe(30_000);
    expect(waitOf("2h")).toBe(7_200_000);
    expect(waitOf("30d")).toBe(30 * 86_400_000);
  });

  it("refuses what is not a duration, and more than 30 days", () => {
    for (const duration of ["soon", "31d", "-1s", ""]) {
      expect(delayNode.config.safeParse({ duration }).success, duration).toBe(false);
    }
  });
});
