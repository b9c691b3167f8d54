// The gate of one flow's concurrency key (docs/engine.md, "Concurrency gates"): it holds `limit`
// slots and grants them in the runs' start order. A run asks with requestSlot (signalWithStart,
// so the first request starts the gate), gets slotGranted before its first node, and releases on
// every end. Slots are never leaked: a grant that cannot reach its run (ended meanwhile) frees
// its slot at once, and when runs wait while slots have been held long, an activity asks
// Temporal which holders have ended (terminated, timed out) and frees theirs. An empty gate ends
// after a minute; a long-lived one continues as new, its state carried over. A flow's throttle is
// a second rule of the same gate: at most `throttle.limit` grants per `throttle.periodMs`, the
// next grant on a timer when the window is full. Without a throttle the gate issues the same
// commands as before it had one (its recorded histories replay). Deterministic: no I/O.
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  workflowInfo,
} from "@temporalio/workflow";
import {
  gateQueueQuery,
  releaseSlotSignal,
  requestSlotSignal,
  slotGrantedSignal,
  type GateState,
  type SlotRequest,
} from "../../core/contracts/concurrency-gate.js";
import type { GateActivities } from "../activities/gate.activities.js";

/** An empty gate ends after this long without a request. */
const IDLE_MS = 60_000;
/** Runs wait and a holder has had its slot this long: the gate asks whether its holders still run. */
export const CHECK_HOLDERS_AFTER_MS = 30_000;
/** Events a gate's history may reach before it continues as new (a grant and a release are about 6). */
const MAX_HISTORY_EVENTS = 4000;

const { endedRuns } = proxyActivities<GateActivities>({
  startToCloseTimeout: "30 seconds",
  retry: { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "30 seconds" },
});

/** Before `b` in grant order: the earlier start, then the smaller run id. */
const before = (a: SlotRequest, b: SlotRequest) =>
  a.startedAt < b.startedAt || (a.startedAt === b.startedAt && a.runId < b.runId);

export async function concurrencyGate(initial: GateState): Promise<void> {
  const holders = new Map(initial.holders.map(({ runId, since }) => [runId, since]));
  const waiting = [...initial.waiting];
  let limit = initial.limit;
  let throttle = initial.throttle;
  // Grant times within the throttle's last period, oldest first.
  const starts = [...(initial.starts ?? [])];
  let changed = false;
  let granting = 0;
  let checkedAt = 0;

  setHandler(requestSlotSignal, (request) => {
    limit = request.limit;
    throttle = request.throttle;
    // A repeated request (the activity retried) changes nothing.
    if (holders.has(request.runId) || waiting.some((w) => w.runId === request.runId)) return;
    const at = waiting.findIndex((w) => before(request, w));
    waiting.splice(at === -1 ? waiting.length : at, 0, request);
    changed = true;
  });
  setHandler(gateQueueQuery, () => ({
    limit,
    holders: [...holders.keys()],
    waiting: waiting.map((w) => w.runId),
  }));
  setHandler(releaseSlotSignal, ({ runId }) => {
    if (holders.delete(runId)) changed = true;
    const at = waiting.findIndex((w) => w.runId === runId);
    if (at !== -1) {
      waiting.splice(at, 1);
      changed = true;
    }
  });

  /**
   * Drops grants older than the throttle's period; true while the window has room for one more.
   * Grants on their way count too: a grant enters the window when it has reached its run.
   */
  const throttleOpen = () => {
    if (!throttle) return true;
    while (starts.length > 0 && starts[0]! <= Date.now() - throttle.periodMs) starts.shift();
    return starts.length + granting < throttle.limit;
  };

  const grant = (request: SlotRequest) => {
    holders.set(request.runId, Date.now());
    granting++;
    getExternalWorkflowHandle(request.runId)
      .signal(slotGrantedSignal, { gateId: workflowInfo().workflowId })
      .then(() => {
        // Timed when the grant is in the run's history, not when the gate decided it (a workflow
        // task's clock is its start, and a slow task would open the next window early).
        if (!throttle) return;
        starts.push(Date.now());
        changed = true;
      })
      .catch(() => {
        // The run has ended (or never started): its slot goes to the next.
        if (holders.delete(request.runId)) changed = true;
      })
      .finally(() => granting--);
  };

  /** Frees the slots of holders that ended without releasing them. */
  const freeEnded = async () => {
    checkedAt = Date.now();
    const ended = await endedRuns({ runIds: [...holders.keys()] });
    for (const runId of ended) if (holders.delete(runId)) changed = true;
  };

  for (;;) {
    changed = false;
    while (holders.size < limit && waiting.length > 0 && throttleOpen()) grant(waiting.shift()!);
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > MAX_HISTORY_EVENTS) {
      await condition(() => granting === 0 && allHandlersFinished());
      const state: GateState = {
        flowId: initial.flowId,
        workspaceId: initial.workspaceId,
        key: initial.key,
        limit,
        ...(throttle ? { throttle, starts } : {}),
        holders: [...holders].map(([runId, since]) => ({ runId, since })),
        waiting,
      };
      return continueAsNew<typeof concurrencyGate>(state);
    }
    if (holders.size === 0 && waiting.length === 0) {
      // A throttled gate outlives its window's last start: a new gate would not know of it.
      throttleOpen(); // drops the starts that left the window
      if (throttle && starts.length > 0) {
        await condition(() => changed, Math.max(1, starts[0]! + throttle.periodMs - Date.now()));
        continue;
      }
      if (!(await condition(() => changed, IDLE_MS)) && granting === 0) return;
      continue;
    }
    if (waiting.length === 0) {
      await condition(() => changed);
      continue;
    }
    // Runs wait on a full throttle window only: the next grant when its oldest start leaves it.
    if (throttle && holders.size < limit) {
      if (starts.length === 0) await condition(() => changed);
      else await condition(() => changed, Math.max(1, starts[0]! + throttle.periodMs - Date.now()));
      continue;
    }
    // Runs wait on full slots: the holders are checked once one has held its slot long enough,
    // and then again only after as long again.
    const oldest = Math.min(...holders.values());
    const due = Math.max(oldest, checkedAt) + CHECK_HOLDERS_AFTER_MS - Date.now();
    if (due <= 0) await freeEnded();
    else await condition(() => changed, due);
  }
}
