// Which runs of a runs-list page the one GET /api/runs/queues asks for.
import { describe, expect, it } from "vitest";
import { QUEUED_PLACES_PER_ASK, queuedRunIds } from "./queued-run-status";

describe("queuedRunIds", () => {
  it("asks for the queued runs only, in the page's order", () => {
    const items = [
      { id: "run_a", status: "running" as const },
      { id: "run_b", status: "queued" as const },
      { id: "run_c", status: "success" as const },
      { id: "run_d", status: "queued" as const },
    ];
    expect(queuedRunIds(items)).toEqual(["run_b", "run_d"]);
    expect(queuedRunIds(items.filter((run) => run.status !== "queued"))).toEqual([]);
  });

  it("asks for at most what the API takes at once", () => {
    const items = Array.from({ length: 60 }, (_, i) => ({ id: `run_${i}`, status: "queued" as const }));
    expect(queuedRunIds(items)).toHaveLength(QUEUED_PLACES_PER_ASK);
    expect(QUEUED_PLACES_PER_ASK).toBe(50);
  });
});
