// Waits that time out after days, on Temporal's time-skipping test server: the real workflow,
// worker, activities, API and database, with the server's clock jumping to the wait's timer.
import { WorkflowFailedError } from "@temporalio/client";
import { describe, expect, it } from "vitest";
import { testPrisma } from "../../test/helpers/context.js";
import { flow, useRunHarness } from "../../test/helpers/runs.js";
import { decideWaitUpdate } from "../../core/contracts/waits.js";

const h = useRunHarness({ timeSkipping: true });

const THREE_DAYS_S = 3 * 86_400;
const seconds = (value: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(value?.seconds ?? 0) + (value?.nanos ?? 0) / 1e9;

const waitFlow = (config: { timeout: string; on_timeout?: "fail" | "branch" }) =>
  config.on_timeout === "branch"
    ? flow(
        [
          { id: "ask", type: "wait", config },
          { id: "approved", type: "set", config: { fields: { outcome: "approved" } } },
          { id: "late", type: "set", config: { fields: { outcome: "timeout", at: "{{ nodes.ask.expired_at }}" } } },
        ],
        [
          ["start", "ask"],
          ["ask", "approved", "approved"],
          ["ask", "late", "timeout"],
        ],
      )
    : flow(
        [
          { id: "ask", type: "wait", config },
          { id: "approved", type: "set", config: { fields: { outcome: "approved" } } },
        ],
        [
          ["start", "ask"],
          ["ask", "approved", "approved"],
        ],
      );

/** The wait's timer in the run's history: its length and the server time it took to fire. */
async function waitTimer(runId: string) {
  const events = (await h.temporal!.client.workflow.getHandle(runId).fetchHistory()).events!;
  const timers = events.filter((e) => e.timerStartedEventAttributes);
  expect(timers).toHaveLength(1);
  const started = timers[0]!;
  const id = started.timerStartedEventAttributes!.timerId;
  const fired = events.find((e) => e.timerFiredEventAttributes?.timerId === id);
  const cancelled = events.find((e) => e.timerCanceledEventAttributes?.timerId === id);
  return {
    lengthS: seconds(started.timerStartedEventAttributes!.startToFireTimeout),
    waitedS: fired ? seconds(fired.eventTime) - seconds(started.eventTime) : undefined,
    cancelled: cancelled !== undefined,
  };
}

async function pendingWait(runId: string) {
  for (let tries = 0; tries < 150; tries++) {
    const wait = await testPrisma().wait.findFirst({ where: { runId, status: "pending" } });
    if (wait) return wait;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`run ${runId} has no pending wait`);
}

describe("runFlow's wait node with a timeout of days (time-skipping server)", () => {
  it("fails the node, without retries, after 3 days of server time when on_timeout is fail", async () => {
    const flowId = await h.createFlow(waitFlow({ timeout: "3d" }));
    const runId = (await h.startRun(flowId)).body.run_id as string;
    // Awaiting the result is what lets the server skip ahead.
    await expect(h.temporal!.client.workflow.getHandle(runId).result()).rejects.toBeInstanceOf(WorkflowFailedError);

    const run = await h.waitForEnd(runId, 10_000);
    expect(run).toMatchObject({ status: "failed", error: { node_id: "ask", message: "timed out after 3d" } });
    const steps = await h.steps(runId);
    expect(steps.filter((s) => s.node_id === "ask")).toEqual([
      expect.objectContaining({
        status: "failed",
        attempt: 1,
        error: { message: "timed out after 3d", type: "WaitTimedOut", retryable: false },
      }),
    ]);
    expect(await testPrisma().wait.findFirst({ where: { runId } })).toMatchObject({
      status: "expired",
      decision: null,
      expiresAt: expect.any(Date),
    });
    const timer = await waitTimer(runId);
    expect(timer.lengthS).toBe(THREE_DAYS_S);
    expect(timer.waitedS).toBeGreaterThanOrEqual(THREE_DAYS_S);
  });

  it("follows the timeout branch after 3 days when on_timeout is branch", async () => {
    const flowId = await h.createFlow(waitFlow({ timeout: "3d", on_timeout: "branch" }));
    const runId = (await h.startRun(flowId)).body.run_id as string;
    await h.temporal!.client.workflow.getHandle(runId).result();

    const run = await h.waitForEnd(runId, 10_000);
    expect(run).toMatchObject({ status: "success", output: { outcome: "timeout", at: expect.any(String) } });
    const steps = Object.fromEntries((await h.steps(runId)).map((s) => [s.node_id, s]));
    expect(steps.ask).toMatchObject({
      status: "success",
      branch: "timeout",
      output: { timed_out: true, expired_at: (run.output as { at: string }).at },
    });
    expect(steps.approved).toMatchObject({ status: "skipped" });
    expect(await testPrisma().wait.findFirst({ where: { runId } })).toMatchObject({ status: "expired" });
    const timer = await waitTimer(runId);
    expect(timer.lengthS).toBe(THREE_DAYS_S);
    expect(timer.waitedS).toBeGreaterThanOrEqual(THREE_DAYS_S);
  });

  it("cancels the timer when the decision comes first", async () => {
    const flowId = await h.createFlow(waitFlow({ timeout: "3d", on_timeout: "branch" }));
    const runId = (await h.startRun(flowId)).body.run_id as string;
    const wait = await pendingWait(runId);
    const handle = h.temporal!.client.workflow.getHandle(runId);
    await handle.executeUpdate(decideWaitUpdate, {
      args: [{ waitId: wait.id, action: "approve", decidedBy: { id: "usr_x", name: "X", role: "owner" } }],
    });
    await handle.result();
    expect(await h.waitForEnd(runId, 10_000)).toMatchObject({ status: "success", output: { outcome: "approved" } });
    expect(await waitTimer(runId)).toMatchObject({ lengthS: THREE_DAYS_S, waitedS: undefined, cancelled: true });
  });
});
