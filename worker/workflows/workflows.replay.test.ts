// Workflows in flight when a new worker is deployed go on under it: the workflow code must replay
// the histories that earlier code recorded (histories/, saved with `temporal workflow show -o json`):
// - regular-nodes.*: runFlow before quick nodes ran as local activities;
// - local-nodes.*: runFlow after;
// - pre-core.*: every workflow type as recorded by the worker before the domain moved to core/
//   (loop children, an agent child, cancellations, webhook retries, a schedule's child run);
// - ends-in-status.*: runFlow ending Failed and Cancelled in Temporal, as its record (the patch
//   RUN_ENDS_IN_TEMPORAL_STATUS);
// - waits.*: runFlow with wait nodes: decided by updates (approval, resume, a timeout's timer
//   cancelled by the decision) and cancelled while waiting.
import { readdirSync, readFileSync } from "node:fs";
import { Worker } from "@temporalio/worker";
import { describe, expect, inject, it } from "vitest";
import * as workflows from "./index.js";

const histories = new URL("./histories/", import.meta.url);
const files = readdirSync(histories).filter((file) => file.endsWith(".json"));

interface RecordedHistory {
  events: Array<{ workflowExecutionStartedEventAttributes?: { workflowType: { name: string } } }>;
}
const read = (file: string) => JSON.parse(readFileSync(new URL(file, histories), "utf8")) as RecordedHistory;
const workflowType = (history: RecordedHistory) =>
  history.events[0]?.workflowExecutionStartedEventAttributes?.workflowType.name;

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

  it("has a history recorded before the move to core/ for every workflow type the worker registers", () => {
    const recorded = new Set(
      files.filter((file) => file.startsWith("pre-core.")).map((file) => workflowType(read(file))),
    );
    expect([...recorded].sort()).toEqual(Object.keys(workflows).sort());
  });

  for (const file of files) {
    it(`replays ${file} without a nondeterminism error`, async () => {
      await expect(
        Worker.runReplayHistory({ workflowBundle: { codePath: inject("workflowBundlePath") } }, read(file)),
      ).resolves.toBeUndefined();
    });
  }
});
