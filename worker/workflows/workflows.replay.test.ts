// Workflows in flight when a new worker is deployed go on under it: the workflow code must replay
// the histories that earlier code recorded (histories/, saved with `temporal workflow show -o json`):
// - regular-nodes.*: runFlow before quick nodes ran as local activities;
// - local-nodes.*: runFlow after;
// - pre-core.*: every workflow type as recorded by the worker before the domain moved to core/
//   (loop children, an agent child, cancellations, webhook retries, a schedule's child run);
// - ends-in-status.*: runFlow ending Failed and Cancelled in Temporal, as its record (the patch
//   RUN_ENDS_IN_TEMPORAL_STATUS);
// - waits.*: runFlow with wait nodes: decided by updates (approval, resume, a timeout's timer
//   cancelled by the decision) and cancelled while waiting;
// - encrypted.*: runFlow under the payload codec (core/engine/data-converter.ts), its payloads
//   sealed under the tests' key (TEST_ENCRYPTION_KEY), its summaries and memo plain.
// - on-error.*: runFlow with nodes whose failures their on_error handled (a local node that
//   continues, a regular one that takes its error handle): the patch NODE_ON_ERROR. Recorded by
//   run-flow.on-error.test.ts with RECORD_HISTORY=1.
// - node-test.*: testNode, a node's test run (POST /api/nodes/test), which came after core/.
//   Recorded by api/routes/nodes/node-test.router.test.ts with RECORD_HISTORY=1.
// - trigger-in-workflow.*: runFlow resolving its trigger itself, with no activity (plans whose
//   trigger has execution "workflow"). Recorded by run-flow.workflow.test.ts with RECORD_HISTORY=1.
// - approvals.*: agentRun with tool calls that waited for approval (approval_tools), one rejected
//   and one approved by updates. Recorded by api/routes/agents/agent-approvals.test.ts with
//   RECORD_HISTORY=1.
// - budgets.*: agentRun whose model call a reached budget held back (its activity answered
//   `budget`), waiting on a wait an admin approved by an update. Recorded by
//   api/routes/agents/agent-budgets.test.ts with RECORD_HISTORY=1; and runFlow whose ai.prompt node
//   a reached budget held back (its activity answered `budget`), waiting on a budget wait an admin
//   approved by an update, then running the node with its pass. Recorded by
//   api/routes/usage/prompt-budgets.test.ts with RECORD_HISTORY=1.
// - run-trees.*: runFlow with a loop that stopped at its failed item, cancelling the item still
//   running and ending those never started (the patch LOOP_STOPS_AT_FAILURE); a run whose
//   flow.call's child was cancelled, ending it cancelled (CANCELLED_CHILD_CANCELS_RUN); and a run
//   whose flow.calls found its tree closed by a cancel (RUN_TREE_CLOSED_ERROR). Recorded by
//   core/runs/run-trees.test.ts with RECORD_HISTORY=1.
// - bulk-rerun.*: bulkRerun, a bulk rerun's passes, cancelled between two (a skipped item, reruns
//   started, the rest skipped as cancelled). Recorded by api/routes/operations/bulk-rerun.test.ts
//   with RECORD_HISTORY=1.
// - concurrency.*: concurrencyGate granting slots, one of its queued runs cancelled, and that
//   runFlow run (asked for by its starter, cancelled while queued, its place given back).
//   Recorded by concurrency-gate.workflow.test.ts with RECORD_HISTORY=1.
// - debounce.*: runFlow of a run that opened a debounce window: waited for it to close and ran
//   with the last input, or was cancelled while waiting (its window dropped). Recorded by
//   api/routes/hooks/hooks.debounce.test.ts with RECORD_HISTORY=1.
// Every history replays through the data converter the workers use: payloads recorded before the
// codec pass through it as they are.
import { readdirSync, readFileSync } from "node:fs";
import type { Payload } from "@temporalio/common";
import { Worker } from "@temporalio/worker";
import { describe, expect, inject, it } from "vitest";
import { sealedPayloadInfo } from "../../lib/crypto/payload-codec.js";
import { createDataConverter } from "../../core/engine/data-converter.js";
import { NODE_ON_ERROR } from "../../core/contracts/run-flow.js";
import { testDataConverter } from "../../test/helpers/context.js";
import * as workflows from "./index.js";

const histories = new URL("./histories/", import.meta.url);
const files = readdirSync(histories).filter((file) => file.endsWith(".json"));

interface RecordedHistory {
  events: Array<{ workflowExecutionStartedEventAttributes?: { workflowType: { name: string } } }>;
}
const read = (file: string) => JSON.parse(readFileSync(new URL(file, histories), "utf8")) as RecordedHistory;
const workflowType = (history: RecordedHistory) =>
  history.events[0]?.workflowExecutionStartedEventAttributes?.workflowType.name;
const replay = (history: RecordedHistory, dataConverter = testDataConverter()) =>
  Worker.runReplayHistory({ workflowBundle: { codePath: inject("workflowBundlePath") }, dataConverter }, history);

/** Every payload of a recorded history (proto JSON: metadata values and data in base64), by where it is. */
function payloadsOf(history: RecordedHistory): Array<{ path: string; payload: Payload }> {
  const found: Array<{ path: string; payload: Payload }> = [];
  const walk = (value: unknown, path: string) => {
    if (!value || typeof value !== "object") return;
    const candidate = value as { metadata?: Record<string, string>; data?: string };
    if (candidate.metadata && typeof candidate.metadata.encoding === "string") {
      const bytes = (text: string) => Buffer.from(text, "base64");
      const metadata = Object.fromEntries(Object.entries(candidate.metadata).map(([k, v]) => [k, bytes(v)]));
      found.push({
        path,
        payload: { metadata, data: candidate.data === undefined ? undefined : bytes(candidate.data) },
      });
      return;
    }
    for (const [key, child] of Object.entries(value)) walk(child, `${path}.${key}`);
  };
  history.events.forEach((event, i) => walk(event, `${i}`));
  return found;
}

describe("the workflows replay the histories of earlier workers", () => {
  it("has runFlow histories of both engines", () => {
    expect(files.filter((file) => file.startsWith("regular-nodes.")).length).toBeGreaterThanOrEqual(2);
    expect(files.filter((file) => file.startsWith("local-nodes.")).length).toBeGreaterThanOrEqual(2);
  });

  it("has runFlow histories that end Failed and Cancelled", () => {
    const ends = files.filter((file) => file.startsWith("ends-in-status."));
    const last = (file: string) => (read(file).events.at(-1) as { eventType?: string }).eventType;
    expect(ends.map(last).sort()).toEqual([
      "EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED",
      "EVENT_TYPE_WORKFLOW_EXECUTION_FAILED",
    ]);
  });

  it("has runFlow histories of wait nodes decided by updates and cancelled while waiting", () => {
    const waits = files.filter((file) => file.startsWith("waits."));
    const types = (file: string) => read(file).events.map((event) => (event as { eventType?: string }).eventType);
    expect(waits.some((file) => types(file).includes("EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED"))).toBe(true);
    expect(waits.some((file) => types(file).at(-1) === "EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED")).toBe(true);
  });

  it("has an agentRun history whose tool calls waited for approvals decided by updates", () => {
    const history = read("approvals.agentRun.rejected-then-approved.json");
    expect(workflowType(history)).toBe("agentRun");
    const types = history.events.map((event) => (event as { eventType?: string }).eventType);
    expect(types.filter((type) => type === "EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED")).toHaveLength(2);
    expect(types.at(-1)).toBe("EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED");
  });

  it("has an agentRun history whose model call waited for an admin's decision on a budget", () => {
    const history = read("budgets.agentRun.paused-then-approved.json");
    expect(workflowType(history)).toBe("agentRun");
    const events = history.events as Array<{
      eventType?: string;
      activityTaskScheduledEventAttributes?: { activityType: { name: string } };
    }>;
    const activities = events.flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType.name ?? []);
    expect(activities.filter((name) => name === "agentStartBudgetWait")).toHaveLength(1);
    expect(events.filter((event) => event.eventType === "EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED")).toHaveLength(
      1,
    );
  });

  it("has a runFlow history in which nodes handled their failures (on_error)", () => {
    const events = read("on-error.runFlow.continue-and-branch.json").events as Array<{
      markerRecordedEventAttributes?: { markerName: string; details: Record<string, { payloads: Payload[] }> };
    }>;
    const markers = events.flatMap((event) =>
      event.markerRecordedEventAttributes ? [event.markerRecordedEventAttributes] : [],
    );
    const text = (marker: (typeof markers)[number], key: string) =>
      Buffer.from(marker.details[key]!.payloads[0]!.data as unknown as string, "base64").toString("utf8");
    expect(markers.filter((m) => m.markerName === "core_patch").map((m) => text(m, "patch-data"))).toEqual([
      JSON.stringify({ id: NODE_ON_ERROR, deprecated: false }),
    ]);
    const local = markers.filter((m) => m.markerName === "core_local_activity").map((m) => text(m, "data"));
    expect(local.filter((data) => data.includes('"activity_type":"recordHandledFailure"'))).toHaveLength(2);
  });

  it("has a history for every workflow type the worker registers, recorded before core/ for those that existed then", () => {
    const preCore = new Set(
      files.filter((file) => file.startsWith("pre-core.")).map((file) => workflowType(read(file))),
    );
    const everyType = new Set(files.map((file) => workflowType(read(file))));
    // Types added since: none of their runs can predate them.
    const since = ["testNode", "bulkRerun", "concurrencyGate"];
    expect([...preCore].sort()).toEqual(
      Object.keys(workflows)
        .filter((type) => !since.includes(type))
        .sort(),
    );
    expect([...everyType].sort()).toEqual(Object.keys(workflows).sort());
  });

  it("has a runFlow history recorded under the payload codec: run data sealed, text for operators plain", async () => {
    const history = read("encrypted.runFlow.local-and-regular.json");
    const payloads = payloadsOf(history);
    const sealed = payloads.filter(({ payload }) => sealedPayloadInfo(payload));
    // The input, the local nodes' results, the code node's input and result, the workflow's result.
    expect(sealed.map(({ path }) => path.split(".").slice(-3).join("."))).toEqual([
      "input.payloads.0",
      "result.payloads.0",
      "result.payloads.0",
      "input.payloads.0",
      "result.payloads.0",
      "result.payloads.0",
    ]);
    expect(new Set(sealed.map(({ payload }) => sealedPayloadInfo(payload)!.keyId))).toEqual(new Set(["test"]));
    const text = payloads
      .map(({ payload }) => Buffer.from(payload.data ?? new Uint8Array()).toString("utf8"))
      .join("\n");
    expect(text).toContain("Encrypted payloads v1 · api");
    expect(text).not.toContain("REPLAY-MARKER");

    const [codec] = testDataConverter().payloadCodecs;
    const opened = await codec.decode(sealed.map(({ payload }) => payload));
    const values = opened.map((payload) => Buffer.from(payload.data!).toString("utf8")).join("\n");
    expect(values).toContain('"secret":"REPLAY-MARKER-6f1c"');
    expect(values).toContain('"computed":"REPLAY-MARKER-6f1c-computed"');

    // Without the key, the worker cannot read the run: the codec is on the replay's path.
    await expect(replay(history, createDataConverter({}))).rejects.toThrow(/Replay failed due workflow task failure/);
  });

  for (const file of files) {
    it(`replays ${file} without a nondeterminism error`, async () => {
      await expect(replay(read(file))).resolves.toBeUndefined();
    });
  }
});
