// Delays of hours and days, on Temporal's time-skipping test server: the real workflow, worker,
// activities, API and database, with the server's clock jumping to each timer.
import { describe, expect, it } from "vitest";
import { flow, useRunHarness } from "../../test/helpers/runs.js";

const h = useRunHarness({ timeSkipping: true });

const seconds = (value: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(value?.seconds ?? 0) + (value?.nanos ?? 0) / 1e9;

describe("runFlow's delay node on a durable timer (time-skipping server)", () => {
  it("waits out a day and then two hours in server time, then runs the nodes after them", async () => {
    const temporal = h.temporal!;
    const flowId = await h.createFlow(
      flow(
        [
          { id: "day", type: "delay", config: { duration: "1d" } },
          { id: "more", type: "delay", config: { duration: "2h" } },
          { id: "after", type: "set", config: { fields: { woke: true } } },
        ],
        [
          ["start", "day"],
          ["day", "more"],
          ["more", "after"],
        ],
      ),
    );
    const serverTimeBefore = await temporal.currentTimeMs();
    const started = await h.startRun(flowId, { order: 7 });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const runId = started.body.run_id as string;

    // Awaiting the result is what lets the server skip ahead.
    const handle = temporal.client.workflow.getHandle(runId);
    await handle.result();
    const run = await h.waitForEnd(runId, 10_000);
    expect(run).toMatchObject({ status: "success", output: { woke: true } });
    // Each delay passed its input on unchanged.
    expect((await h.steps(runId)).map((s) => [s.node_id, s.status, s.output])).toEqual([
      ["start", "success", { order: 7 }],
      ["day", "success", { order: 7 }],
      ["more", "success", { order: 7 }],
      ["after", "success", { woke: true }],
    ]);

    // The history holds one timer per delay, of its full length, each fired after its length
    // of server time; the server's clock moved on by at least both.
    const events = (await handle.fetchHistory()).events!;
    const timers = events.filter((e) => e.timerStartedEventAttributes);
    expect(timers.map((e) => seconds(e.timerStartedEventAttributes!.startToFireTimeout))).toEqual([86_400, 7_200]);
    for (const started of timers) {
      const id = started.timerStartedEventAttributes!.timerId;
      const fired = events.find((e) => e.timerFiredEventAttributes?.timerId === id);
      expect(fired, `timer ${id} fired`).toBeDefined();
      const waited = seconds(fired!.eventTime) - seconds(started.eventTime);
      expect(waited).toBeGreaterThanOrEqual(seconds(started.timerStartedEventAttributes!.startToFireTimeout));
    }
    expect((await temporal.currentTimeMs()) - serverTimeBefore).toBeGreaterThanOrEqual((86_400 + 7_200) * 1000);
  });
});
