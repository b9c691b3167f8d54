// What the flow-control box's Queue line says of GET /api/flows/{id}/queue's answer.
import { describe, expect, it } from "vitest";
import { queueText } from "./flow-queue";

const key = (name: string | null, queued: number, running: number) => ({
  key: name,
  queued,
  running,
  limit: 2,
  oldest_wait_seconds: queued ? 12.5 : 0,
});

describe("the Queue line", () => {
  it("says the runs waiting, the longest wait, and each key's waiting and running runs", () => {
    expect(queueText({ queued: 3, oldest_wait_seconds: 12.5, keys: [key("acme", 3, 2), key("", 0, 1)] })).toBe(
      "3 waiting, longest for 12.5 s; acme: 3 waiting, 2 of 2 running; all runs: 0 waiting, 1 of 2 running",
    );
  });

  it("says when nothing waits or runs, and counts the keys it does not name", () => {
    expect(queueText({ queued: 0, oldest_wait_seconds: 0, keys: [] })).toBe("no run waiting or running");
    const keys = ["a", "b", "c", "d", "e", "f", "g"].map((name) => key(name, 0, 1));
    expect(queueText({ queued: 0, oldest_wait_seconds: 0, keys })).toMatch(
      /^no run waiting; a: .*; e: [^;]*; 2 more keys$/,
    );
  });
});
