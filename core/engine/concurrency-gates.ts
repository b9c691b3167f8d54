// The gate of a flow's concurrency key (docs/engine.md, "Concurrency gates"): its workflow id and
// the key as statuses show it. The id is always a hash of the key, so that no run input reaches
// Temporal's visibility in plain text and any key gives a bounded id; the key itself travels in
// the gate's encrypted input.
import { createHash } from "node:crypto";
import type { Client } from "@temporalio/client";
import {
  CONCURRENCY_GATE_WORKFLOW,
  requestSlotSignal,
  type GateState,
  type RequestSlotInput,
  type RequestSlotResult,
} from "../contracts/concurrency-gate.js";
import { slotKeyHash } from "./concurrency-slots.js";
import { operatorText } from "../contracts/operator-text.js";
import { FLOW_PRIORITY } from "../contracts/run-priority.js";

/** Characters of a key shown as they are; a longer key is shown as its SHA-256. */
export const MAX_PLAIN_KEY_LENGTH = 100;

/** The gate workflow's id for runs of `flowId` with the rendered key `key` ("" without a key). */
export function concurrencyGateId(flowId: string, key: string): string {
  return `gate-${flowId}-${createHash("sha256").update(key).digest("hex").slice(0, 32)}`;
}

/** The key as a queued run's reason shows it: itself, or its hash when it is long. */
export function shownKey(key: string): string {
  return key.length > MAX_PLAIN_KEY_LENGTH ? `sha256:${createHash("sha256").update(key).digest("hex")}` : key;
}

/**
 * Asks the gate of the run's flow and key for a slot, starting the gate when it is not running;
 * the gate signals the grant to the run's workflow. A repeated request changes nothing.
 */
export async function requestGateSlot(
  temporal: Client,
  taskQueue: string,
  input: RequestSlotInput,
): Promise<RequestSlotResult> {
  const gateId = concurrencyGateId(input.flowId, input.key);
  const initial: GateState = {
    flowId: input.flowId,
    workspaceId: input.workspaceId,
    key: input.key,
    limit: input.limit,
    ...(input.throttle ? { throttle: input.throttle } : {}),
    holders: [],
    waiting: [],
  };
  await temporal.workflow.signalWithStart(CONCURRENCY_GATE_WORKFLOW, {
    workflowId: gateId,
    taskQueue,
    args: [initial],
    signal: requestSlotSignal,
    signalArgs: [
      {
        runId: input.runId,
        limit: input.limit,
        ...(input.throttle ? { throttle: input.throttle } : {}),
        startedAt: input.startedAt,
        ...(input.dbCounted ? { db: { keyHash: slotKeyHash(input.key) } } : {}),
      },
    ],
    // Grants go first: a gate's task waits behind no run of its workspace.
    priority: { priorityKey: FLOW_PRIORITY.highest, fairnessKey: input.workspaceId },
    staticSummary: operatorText(`concurrency gate of flow ${input.flowId}`),
  });
  return { gateId, key: shownKey(input.key) };
}
