import { describe, expect, it } from "vitest";
import type { RunNode, Step } from "../types";
import { durationOf, runProgress, stateLabel } from "./run-progress";

const step = (node_id: string, status: Step["status"], extra: Partial<Step> = {}): Step => ({
  node_id,
  type: "set",
  status,
  attempt: 1,
  branch: null,
  started_at: "2026-01-01T00:00:00.000Z",
  finished_at: "2026-01-01T00:00:00.010Z",
  duration_ms: 10,
  input: null,
  input_unavailable: null,
  output: null,
  error: null,
  carried_over_from: null,
  ...extra,
});

const node = (id: string, name: string | null = null, carried_over_from: string | null = null): RunNode => ({
  id,
  type: "set",
  name,
  position: null,
  carried_over_from,
});

describe("a run's progress by node", () => {
  it("lists every node in graph order, by name, with nodes not started yet as pending", () => {
    const progress = runProgress(
      {
        // The API lists steps by start time; the nodes come in graph order.
        items: [step("b", "running"), step("start", "success")],
        nodes: [node("start", "Manual start"), node("b"), node("c", "Send it")],
        edges: [],
      },
      "running",
    );
    expect(progress.map((n) => [n.label, n.state])).toEqual([
      ["Manual start", "success"],
      ["b", "running"],
      ["Send it", "pending"],
    ]);
  });

  it("says a node without a step did not run once the run has ended", () => {
    const progress = runProgress({ items: [step("start", "failed")], nodes: [node("start"), node("b")] }, "cancelled");
    expect(progress.map(stateLabel)).toEqual(["failed", "not run"]);
  });

  it("says a failure the node's on_error handled was handled, its earlier attempts failed", () => {
    const first = step("call", "failed", { error: { message: "HTTP 500" } });
    const last = step("call", "failed", {
      attempt: 2,
      branch: "error",
      output: { error: { message: "HTTP 500", code: "NodeError" } },
      error: { message: "HTTP 500", handled: "branch" },
    });
    const [call] = runProgress({ items: [first, last], nodes: [node("call")] }, "success");
    expect([call!.state, stateLabel(call!), call!.attempts.map((a) => a.status)]).toEqual([
      "handled",
      "failed, handled",
      ["failed", "failed"],
    ]);
  });

  it("says which step a cancellation stopped, rather than that it failed", () => {
    const interrupted = step("wait", "failed", { error: { message: "the run was cancelled while this step ran" } });
    const broken = step("other", "failed", { error: { message: "HTTP 500" } });
    const progress = runProgress({ items: [interrupted, broken], nodes: [node("wait"), node("other")] }, "cancelled");
    expect(progress.map(stateLabel)).toEqual(["cancelled", "failed"]);
    expect(runProgress({ items: [interrupted], nodes: [node("wait")] }, "failed")[0]!.state).toBe("failed");
  });

  it("keeps a node's attempts in order, its last attempt giving its state and duration", () => {
    const progress = runProgress(
      {
        items: [
          step("flaky", "success", { attempt: 2, duration_ms: 30 }),
          step("flaky", "failed", { attempt: 1, duration_ms: 5 }),
        ],
        nodes: [node("flaky")],
      },
      "success",
    );
    expect(progress[0]!.attempts.map((a) => a.attempt)).toEqual([1, 2]);
    expect(progress[0]!.state).toBe("success");
    expect(durationOf(progress[0]!)).toBe(30);
  });

  it("shows what a retry carried over as such, with no duration, before and after its rows exist", () => {
    const before = runProgress({ items: [], nodes: [node("start", null, "run_a"), node("gate")] }, "running");
    expect(before.map((n) => [n.id, stateLabel(n), n.carriedOverFrom])).toEqual([
      ["start", "carried over", "run_a"],
      ["gate", "pending", null],
    ]);
    const after = runProgress(
      {
        items: [step("gate", "success"), step("start", "success", { duration_ms: 0, carried_over_from: "run_a" })],
        nodes: [node("start", null, "run_a"), node("gate")],
      },
      "success",
    );
    expect(after.map((n) => [n.id, n.state])).toEqual([
      ["start", "carried_over"],
      ["gate", "success"],
    ]);
    expect(durationOf(after[0]!)).toBeNull();
  });

  it("falls back to the steps' order, by id, when the API lists no nodes", () => {
    const progress = runProgress({ items: [step("b", "success"), step("a", "failed")] }, "failed");
    expect(progress.map((n) => [n.label, n.state])).toEqual([
      ["b", "success"],
      ["a", "failed"],
    ]);
  });
});
