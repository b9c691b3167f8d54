// Per-node error handling (on_error, retry and timeout_ms overrides) through the API, on a real
// worker against the real Temporal dev server and PostgreSQL.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { NODE_ON_ERROR } from "../../core/contracts/run-flow.js";
import { exportedHistory } from "../../test/helpers/histories.js";
import { flow, useRunHarness } from "../../test/helpers/runs.js";

const h = useRunHarness();

type Step = Awaited<ReturnType<typeof h.steps>>[number];
const ofNode = (steps: Step[], id: string) => steps.filter((s) => s.node_id === id);
const lastOf = (steps: Step[], id: string) => ofNode(steps, id).at(-1)!;
const quickRetry = (max_attempts: number) => ({ max_attempts, initial_interval_ms: 100 });
const historyEvents = async (runId: string) => (await h.deps.temporal.workflow.getHandle(runId).fetchHistory()).events!;
/** The names of the patches the run's workflow recorded. */
const patches = async (runId: string) =>
  (await historyEvents(runId))
    .filter((e) => e.markerRecordedEventAttributes?.markerName === "core_patch")
    .map((e) => {
      const data = e.markerRecordedEventAttributes!.details!["patch-data"]!.payloads![0]!.data!;
      return (JSON.parse(Buffer.from(data).toString("utf8")) as { id: string }).id;
    });

describe("runFlow: per-node error handling", () => {
  it("continue: the node outputs its error, downstream reads it, the run succeeds with the failures visible", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "call", type: "test_fail", config: { failures: 9 }, retry: quickRetry(2), on_error: "continue" },
          { id: "report", type: "test_echo", config: { value: "{{ nodes.call.error.message }}" } },
        ],
        [
          ["start", "call"],
          ["call", "report"],
        ],
      ),
    );
    const run = await h.runToEnd(flowId);
    const failure = { error: { message: "planned failure 2 of 9", code: "NodeError" } };
    expect(run).toMatchObject({
      status: "success",
      error: null,
      output: { input: failure, value: "planned failure 2 of 9" },
    });

    const steps = await h.steps(run.id);
    // Both attempts stay failed; the last one records what the node passed on.
    expect(ofNode(steps, "call").map((s) => [s.attempt, s.status, s.output])).toEqual([
      [1, "failed", null],
      [2, "failed", failure],
    ]);
    expect(lastOf(steps, "call").error).toEqual({
      message: "planned failure 2 of 9",
      type: "NodeError",
      retryable: true,
      handled: "continue",
    });
    expect(ofNode(steps, "call")[0]!.error).not.toHaveProperty("handled");
    expect(lastOf(steps, "report")).toMatchObject({ status: "success", input: failure, input_unavailable: null });
    // Temporal's status says so too, once the workflow closes (the run's record may end first).
    const handle = h.deps.temporal.workflow.getHandle(run.id);
    await expect(handle.result()).resolves.toMatchObject({ status: "success" });
    expect((await handle.describe()).status.name).toBe("COMPLETED");
    expect(await patches(run.id)).toEqual([NODE_ON_ERROR]);
  });

  it("branch: a failure runs only the error edges, a success only the others", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "call",
            type: "test_fail",
            config: { failures: "{{ input.failures }}" },
            retry: quickRetry(3),
            on_error: "branch",
          },
          { id: "next", type: "test_echo", config: { value: "next" } },
          { id: "after_next", type: "debug" },
          { id: "recover", type: "test_echo", config: { value: "{{ input.error.code }}" } },
        ],
        [
          ["start", "call"],
          ["call", "next"],
          ["next", "after_next"],
          ["call", "recover", "error"],
        ],
      ),
    );

    const failed = await h.runToEnd(flowId, { failures: 5 });
    const failure = { error: { message: "planned failure 3 of 5", code: "NodeError" } };
    expect(failed).toMatchObject({ status: "success", output: { input: failure, value: "NodeError" } });
    const failedSteps = await h.steps(failed.id);
    expect(ofNode(failedSteps, "call").map((s) => s.status)).toEqual(["failed", "failed", "failed"]);
    expect(lastOf(failedSteps, "call")).toMatchObject({
      branch: "error",
      output: failure,
      error: { handled: "branch", type: "NodeError" },
    });
    expect(lastOf(failedSteps, "next").status).toBe("skipped");
    expect(lastOf(failedSteps, "after_next").status).toBe("skipped");
    expect(lastOf(failedSteps, "recover")).toMatchObject({ status: "success", input: failure });

    // Fails twice, then succeeds at its third attempt (max_attempts 3): the error edge is skipped.
    const recovered = await h.runToEnd(flowId, { failures: 2 });
    expect(recovered).toMatchObject({ status: "success", output: { input: { attempt: 3 }, value: "next" } });
    const recoveredSteps = await h.steps(recovered.id);
    expect(ofNode(recoveredSteps, "call").map((s) => [s.attempt, s.status])).toEqual([
      [1, "failed"],
      [2, "failed"],
      [3, "success"],
    ]);
    expect(lastOf(recoveredSteps, "call").branch).toBeNull();
    expect(lastOf(recoveredSteps, "recover").status).toBe("skipped");
    expect(lastOf(recoveredSteps, "after_next").status).toBe("success");
    // A run whose nodes all succeed takes no patch: nothing in its history changes.
    expect(await patches(recovered.id)).toEqual([]);
  });

  it("branch without an error edge: the failure ends that path, the run still succeeds", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "call", type: "test_fail", config: { failures: 1, fatal: true }, on_error: "branch" },
          { id: "next", type: "debug" },
          { id: "other", type: "test_echo", config: { value: "other" } },
        ],
        [
          ["start", "call"],
          ["call", "next"],
          ["start", "other"],
        ],
      ),
    );
    const run = await h.runToEnd(flowId);
    expect(run).toMatchObject({ status: "success", output: { input: {}, value: "other" } });
    const steps = await h.steps(run.id);
    // A non-retryable failure stays non-retryable: one attempt, then the error handle.
    expect(ofNode(steps, "call").map((s) => [s.status, s.branch])).toEqual([["failed", "error"]]);
    expect(lastOf(steps, "call").error).toMatchObject({ type: "NodeFatalError", retryable: false, handled: "branch" });
    expect(lastOf(steps, "next").status).toBe("skipped");
  });

  it("handles a local node's failure too, without retrying what is not retryable", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "shape",
            type: "transform",
            config: { expression: '$error("no shape")' },
            retry: quickRetry(5),
            on_error: "continue",
          },
          { id: "after", type: "test_echo", config: { value: "{{ nodes.shape.error.code }}" } },
        ],
        [
          ["start", "shape"],
          ["shape", "after"],
        ],
      ),
    );
    const run = await h.runToEnd(flowId);
    expect(run).toMatchObject({ status: "success", output: { value: "NodeFatalError" } });
    const shape = ofNode(await h.steps(run.id), "shape");
    expect(shape).toHaveLength(1);
    expect(shape[0]).toMatchObject({
      status: "failed",
      output: { error: { code: "NodeFatalError", message: expect.stringContaining("no shape") } },
      error: { handled: "continue" },
    });
  });

  it("timeout_ms and retry override the node's activity options; a timeout outputs code Timeout", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "slow",
            type: "test_sleep",
            config: { ms: 5000 },
            timeout_ms: 400,
            retry: { max_attempts: 2, initial_interval_ms: 200, backoff_coefficient: 3, max_interval_ms: 900 },
            on_error: "continue",
          },
        ],
        [["start", "slow"]],
      ),
    );
    const run = await h.runToEnd(flowId);
    expect(run).toMatchObject({
      status: "success",
      output: { error: { code: "Timeout", message: "the node timed out (timeout_ms 400)" } },
    });
    const slow = ofNode(await h.steps(run.id), "slow");
    expect(slow.map((s) => [s.attempt, s.status])).toEqual([
      [1, "failed"],
      [2, "failed"],
    ]);
    expect(slow[1]!.error).toMatchObject({ handled: "continue" });

    const scheduled = (await historyEvents(run.id)).flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes] : [],
    );
    const ms = (duration?: { seconds?: unknown; nanos?: number | null } | null) =>
      Number(duration?.seconds ?? 0) * 1000 + (duration?.nanos ?? 0) / 1e6;
    expect(scheduled).toHaveLength(1);
    expect(ms(scheduled[0]!.startToCloseTimeout)).toBe(400);
    expect(scheduled[0]!.retryPolicy).toMatchObject({ maximumAttempts: 2, backoffCoefficient: 3 });
    expect(ms(scheduled[0]!.retryPolicy!.initialInterval)).toBe(200);
    expect(ms(scheduled[0]!.retryPolicy!.maximumInterval)).toBe(900);

    // The same timeout without on_error fails the run.
    const stopping = await h.createFlow(
      flow(
        [{ id: "slow", type: "test_sleep", config: { ms: 5000 }, timeout_ms: 400, retry: quickRetry(1) }],
        [["start", "slow"]],
      ),
    );
    expect(await h.runToEnd(stopping)).toMatchObject({ status: "failed", error: { node_id: "slow" } });
  });

  it("handles a node that waits in the workflow: a loop whose item's child run fails", async () => {
    const child = await h.createFlow(
      flow([{ id: "boom", type: "test_fail", config: { failures: 9, fatal: true } }], [["start", "boom"]]),
      "Failing child",
    );
    const flowId = await h.createFlow(
      flow(
        [{ id: "each", type: "loop", config: { items: "{{ input.items }}", flow_id: child }, on_error: "continue" }],
        [["start", "each"]],
      ),
    );
    const run = await h.runToEnd(flowId, { items: [1] });
    expect(run).toMatchObject({ status: "success", output: { error: { code: "LoopItemFailed" } } });
    // The loop's step, recorded as running while its children ran, ends failed with the error.
    const [each] = ofNode(await h.steps(run.id), "each");
    expect(each).toMatchObject({
      status: "failed",
      error: {
        type: "LoopItemFailed",
        handled: "continue",
        message: expect.stringMatching(/^item 0 \(run run_\w+\) failed/),
      },
      finished_at: expect.any(String),
    });
  });

  // The replay fixture of a run that handled failures (workflows.replay.test.ts). Set
  // RECORD_HISTORY=1 to record it again, after a change that earlier histories must not see.
  it("records a run that continues after one failure and branches on another", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "shape", type: "transform", config: { expression: '$error("no shape")' }, on_error: "continue" },
          { id: "call", type: "test_fail", config: { failures: 9 }, retry: quickRetry(2), on_error: "branch" },
          { id: "next", type: "test_echo", config: { value: "next" } },
          { id: "recover", type: "test_echo", config: { value: "{{ nodes.shape.error.code }}" } },
        ],
        [
          ["start", "shape"],
          ["shape", "call"],
          ["call", "next"],
          ["call", "recover", "error"],
        ],
      ),
    );
    const run = await h.runToEnd(flowId);
    expect(run).toMatchObject({ status: "success", output: { value: "NodeFatalError" } });
    if (process.env.RECORD_HISTORY === "1") {
      const fixture = new URL("./histories/on-error.runFlow.continue-and-branch.json", import.meta.url);
      // Stack traces name the checkout: written as /app, as in the other fixtures.
      const checkout = fileURLToPath(new URL("../../", import.meta.url));
      const json = JSON.stringify(JSON.parse(await exportedHistory(h.deps.temporal, run.id)), null, 2);
      writeFileSync(fixture, `${json.replaceAll(checkout, "/app/")}\n`);
    }
  });
});
