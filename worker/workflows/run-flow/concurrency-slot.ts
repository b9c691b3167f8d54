// A run of a flow with `concurrency` (docs/engine.md, "Concurrency gates"): before its first node
// it asks the gate of its flow and key for a slot and waits for the grant; on every end it gives
// the slot back (or its place in the queue, when cancelled while waiting). A run not granted
// within QUEUED_AFTER_MS is stored `queued` until its grant (a run granted at once costs no
// write). A key its input does not render fails the run before anything ran.
import {
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
} from "@temporalio/workflow";
import { releaseSlotSignal, slotGrantedSignal } from "../../../core/contracts/concurrency-gate.js";
import { ConcurrencyKeyError, gateSetting, renderConcurrencyKey } from "../../../core/flows/concurrency-key.js";
import type { GateActivities } from "../../activities/gate.activities.js";
import type { RunState } from "./run-state.js";

/** A run its starter asked a slot for asks again itself after this long without a grant. */
const ASK_AGAIN_AFTER_MS = 60_000;
/** A run not granted this long after asking is stored `queued` (and `running` once granted). */
export const QUEUED_AFTER_MS = 200;
/** Runs store `queued` while they wait: histories recorded before wait without these commands. */
export const RUN_STORES_QUEUED = "run-stores-queued";

// One signalWithStart, or one update of the run's row, run by this worker without a round trip
// through the server; retried until Temporal (or the database) answers.
const { requestSlot, markRunQueued, markRunGranted } = proxyLocalActivities<GateActivities>({
  startToCloseTimeout: "1 minute",
  localRetryThreshold: "10 seconds",
  retry: { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "1 minute" },
});

/**
 * Waits for a slot of the run's gate; its id, to release the slot with, or undefined when the run
 * failed before asking (its key did not render). A cancellation while waiting marks the run
 * cancelled: it still has a place in the gate's queue to give back.
 */
export async function takeSlot(state: RunState): Promise<string | undefined> {
  const { run } = state;
  const gate = gateSetting(run.definition)!;
  let key: string;
  try {
    key = renderConcurrencyKey(gate, run.input, gate.field);
  } catch (error) {
    if (!(error instanceof ConcurrencyKeyError)) throw error;
    state.failure = { message: error.message, type: error.name };
    return undefined;
  }
  let granted = false;
  setHandler(slotGrantedSignal, () => void (granted = true));
  // Not cancellable: once asked, the gate knows the run, so the run must know its gate.
  const ask = () =>
    CancellationScope.nonCancellable(() =>
      requestSlot({
        runId: run.runId,
        flowId: run.flowId,
        workspaceId: run.workspaceId,
        startedAt: run.startedAt,
        limit: gate.limit,
        ...(gate.throttle ? { throttle: gate.throttle } : {}),
        key,
      }),
    );
  let gateId = run.gateId;
  // What the Temporal UI shows on the run's page while it waits (its gate's id, not its key: the
  // key is run data, sealed in payloads).
  const queued = (id: string | undefined) =>
    setCurrentDetails(
      `queued: waiting for ${run.definition.concurrency ? "a concurrency slot" : "a throttle window"} of gate ${id ?? "(asking)"}`,
    );
  queued(gateId);
  const askedByStarter = gateId !== undefined;
  try {
    if (!askedByStarter) queued((gateId = (await ask()).gateId));
    const stored = patched(RUN_STORES_QUEUED) && !granted && !(await condition(() => granted, QUEUED_AFTER_MS));
    if (stored) await markRunQueued({ runId: run.runId });
    // Asked by the starter: asked again (a repeat changes nothing) if no grant came meanwhile.
    if (askedByStarter && !(await condition(() => granted, ASK_AGAIN_AFTER_MS))) await ask();
    await condition(() => granted);
    if (stored) await markRunGranted({ runId: run.runId });
  } catch (error) {
    if (!isCancellation(error)) throw error;
    state.cancelled = true;
  }
  setCurrentDetails("");
  return gateId;
}

/** Gives the slot (or the place in the queue) back; a gate that is gone has nothing to free. */
export async function releaseSlot(gateId: string, runId: string): Promise<void> {
  await CancellationScope.nonCancellable(() =>
    getExternalWorkflowHandle(gateId).signal(releaseSlotSignal, { runId }),
  ).catch(() => undefined);
}
