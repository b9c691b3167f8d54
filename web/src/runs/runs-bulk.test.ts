import { describe, expect, it } from "vitest";
import { ApiError } from "../api";
import { actOnEach, outcomeText, type BulkAction } from "./runs-bulk";

describe("retry and cancel of the selected runs", () => {
  it("calls each run's own endpoint in turn and collects the refused ones with why", async () => {
    const calls: string[] = [];
    const call = async (action: BulkAction, id: string) => {
      calls.push(`${action} ${id}`);
      if (id === "run_b") throw new ApiError(409, "run_not_failed", "The run has not failed");
    };
    const outcome = await actOnEach("retry", ["run_a", "run_b", "run_c"], call);
    expect(calls).toEqual(["retry run_a", "retry run_b", "retry run_c"]);
    expect(outcome).toEqual({
      action: "retry",
      done: 2,
      failed: [{ id: "run_b", message: "The run has not failed" }],
    });
    expect(outcomeText(outcome)).toBe("Retried 2 runs; 1 run not: run_b: The run has not failed");
  });

  it("says what was done in the singular and the plural", () => {
    expect(outcomeText({ action: "cancel", done: 1, failed: [] })).toBe("Cancelled 1 run.");
    expect(outcomeText({ action: "retry", done: 2, failed: [] })).toBe("Retried 2 runs.");
    expect(
      outcomeText({
        action: "cancel",
        done: 0,
        failed: [
          { id: "run_a", message: "gone" },
          { id: "run_b", message: "ended" },
        ],
      }),
    ).toBe("Cancelled 0 runs; 2 runs not: run_a: gone; run_b: ended");
  });
});
