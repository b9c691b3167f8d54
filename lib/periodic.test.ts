import { describe, expect, it } from "vitest";
import { runPeriodically } from "./periodic.js";

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("runPeriodically", () => {
  it("repeats at once while the task reports more work, survives errors, and stops for good", async () => {
    const calls: number[] = [];
    const errors: unknown[] = [];
    let backlog = 3;
    const stop = runPeriodically(
      async () => {
        calls.push(Date.now());
        if (calls.length === 5) throw new Error("boom");
        return backlog-- > 0;
      },
      { intervalMs: 40, onError: (error) => errors.push(error) },
    );
    await expect.poll(() => calls.length, { timeout: 2000 }).toBeGreaterThanOrEqual(7);
    stop();
    const stoppedAt = calls.length;
    // The backlog passes (1 to 4) follow each other at once; the later ones wait about 40 ms.
    expect(calls[3]! - calls[0]!).toBeLessThan(30);
    expect(calls[6]! - calls[5]!).toBeGreaterThanOrEqual(25);
    expect(errors).toEqual([new Error("boom")]);
    await wait(150);
    expect(calls.length).toBe(stoppedAt);
  });
});
