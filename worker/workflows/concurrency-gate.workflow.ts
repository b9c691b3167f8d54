// The gate of one flow's concurrency key (docs/engine.md, "Concurrency gates"): it holds `limit`
// slots and grants them in the runs' start order. A run asks with requestSlot (signalWithStart,
// so the first request starts the gate), gets slotGranted before its first node, and releases on
// every end. Slots are never leaked: a grant that cannot reach its run (ended meanwhile) frees
// its slot at once, and when runs wait while slots have been held long, an activity asks
// Temporal which holders have ended (terminated, timed out) and frees theirs. An empty gate ends
// after a minute; a long-lived one continues as new, its state carried over. A flow's throttle is
// a second rule of the same gate: at most `throttle.limit` grants per `throttle.periodMs`, the
// next grant on a timer when the window is full. Without a throttle the gate issues the same
// commands as before it had one (its recorded histories replay). Runs that took a free slot in
// PostgreSQL (core/engine/concurrency-slots.ts) never meet the gate; a request marked `db` makes
// the gate count those slots as held, read with an activity. Deterministic: no I/O.
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

/** Runs wait behind slots held in the database: the gate reads their count again this often. */
export const DB_RECHECK_MS = 2_000;

const { endedRuns, dbSlotsHeld } = proxyActivities<GateActivities>({
  startToCloseTimeout: "30 seconds",
  retry: { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "30 seconds" },
});

/** Before `b` in grant order: the earlier start, then the smaller run id. */
const before = (a: SlotRequest, b: SlotRequest) =>
  a.startedAt < b.startedAt || (a.startedAt === b.startedAt && a.runId < b.runId);

/** A gate's state, changed by its signals and its grants. */
interface Gate {
  holders: Map<string, number>;
  waiting: SlotRequest[];
  limit: number;
  throttle: GateState["throttle"];
  /** Grant times within the throttle's last period, oldest first. */
  starts: number[];
  /** Something happened that the loop must look at. */
  changed: boolean;
  /** Grants sent and not yet in their run's history. */
  granting: number;
  /** When the holders were last checked. */
  checkedAt: number;
  /**
   * Slots held in the database (SlotRequest.db), as last read; `stale` when they must be read
   * again before a grant (a request came, or DB_RECHECK_MS passed).
   */
  db?: { keyHash: string; held: number; stale: boolean; checkedAt: number };
}

/** The gate's signal and query handlers. */
function handleMessages(gate: Gate, key: string) {
  setHandler(requestSlotSignal, (request) => {
    gate.limit = request.limit;
    gate.throttle = request.throttle;
    if (request.db) {
      gate.db ??= { keyHash: request.db.keyHash, held: 0, stale: true, checkedAt: Date.now() };
      gate.db.stale = true;
    }
    // A repeated request (the activity retried) changes nothing.
    if (gate.holders.has(request.runId) || gate.waiting.some((w) => w.runId === request.runId)) return;
    const at = gate.waiting.findIndex((w) => before(request, w));
    gate.waiting.splice(at === -1 ? gate.waiting.length : at, 0, request);
    gate.changed = true;
  });
  setHandler(gateQueueQuery, () => ({
    limit: gate.limit,
    holders: [...gate.holders.keys()],
    waiting: gate.waiting.map((w) => w.runId),
    key,
  }));
  setHandler(releaseSlotSignal, ({ runId }) => {
    if (gate.holders.delete(runId)) gate.changed = true;
    const at = gate.waiting.findIndex((w) => w.runId === runId);
    if (at !== -1) {
      gate.waiting.splice(at, 1);
      gate.changed = true;
    }
  });
}

/**
 * Drops grants older than the throttle's period; true while the window has room for one more.
 * Grants on their way count too: a grant enters the window when it has reached its run.
 */
function throttleOpen(gate: Gate) {
  const { throttle, starts } = gate;
  if (!throttle) return true;
  while (starts.length > 0 && starts[0]! <= Date.now() - throttle.periodMs) starts.shift();
  return starts.length + gate.granting < throttle.limit;
}

function grant(gate: Gate, request: SlotRequest) {
  gate.holders.set(request.runId, Date.now());
  gate.granting++;
  getExternalWorkflowHandle(request.runId)
    .signal(slotGrantedSignal, { gateId: workflowInfo().workflowId })
    .then(() => {
      // Timed when the grant is in the run's history, not when the gate decided it (a workflow
      // task's clock is its start, and a slow task would open the next window early).
      if (!gate.throttle) return;
      gate.starts.push(Date.now());
      gate.changed = true;
    })
    .catch(() => {
      // The run has ended (or never started): its slot goes to the next.
      if (gate.holders.delete(request.runId)) gate.changed = true;
    })
    .finally(() => gate.granting--);
}

/** Frees the slots of holders that ended without releasing them. */
async function freeEnded(gate: Gate) {
  gate.checkedAt = Date.now();
  const ended = await endedRuns({ runIds: [...gate.holders.keys()] });
  for (const runId of ended) if (gate.holders.delete(runId)) gate.changed = true;
}

/** Slots free: the gate's holders and those held in the database below the limit. */
const slotFree = (gate: Gate) => gate.holders.size + (gate.db?.held ?? 0) < gate.limit;

/**
 * Reads the database's slots of the key again; once they have held runs back a while, those of
 * runs whose workflow no longer runs are freed first.
 */
async function readDbSlots(gate: Gate, flowId: string) {
  const db = gate.db!;
  db.stale = false;
  const checkEnded = Date.now() - db.checkedAt >= CHECK_HOLDERS_AFTER_MS;
  if (checkEnded) db.checkedAt = Date.now();
  db.held = await dbSlotsHeld({ flowId, keyHash: db.keyHash, checkEnded });
}

/**
 * Waits for a change while runs wait on full slots some of which the database holds: its count
 * is read again every DB_RECHECK_MS (a run whose end freed one does not tell the gate), and
 * the gate's own holders checked as awaitNext does.
 */
async function awaitDbSlots(gate: Gate) {
  const { holders } = gate;
  const changed = () => gate.changed;
  if (holders.size > 0) {
    const due = Math.max(Math.min(...holders.values()), gate.checkedAt) + CHECK_HOLDERS_AFTER_MS - Date.now();
    if (due <= 0) return freeEnded(gate);
    if (gate.db!.held === 0) return void (await condition(changed, due));
  } else if (gate.db!.held === 0) return void (await condition(changed));
  if (!(await condition(changed, DB_RECHECK_MS))) gate.db!.stale = true;
}

/** The state a continued gate starts from. */
const carriedState = (initial: GateState, gate: Gate): GateState => ({
  flowId: initial.flowId,
  workspaceId: initial.workspaceId,
  key: initial.key,
  limit: gate.limit,
  ...(gate.throttle ? { throttle: gate.throttle, starts: gate.starts } : {}),
  holders: [...gate.holders].map(([runId, since]) => ({ runId, since })),
  waiting: gate.waiting,
  ...(gate.db ? { db: { keyHash: gate.db.keyHash, held: gate.db.held } } : {}),
});

/**
 * Waits for what comes next once the gate has granted what it could: false when the gate may
 * end (empty, idle and no throttle window to keep).
 */
async function awaitNext(gate: Gate): Promise<boolean> {
  const { holders, waiting, limit, throttle, starts } = gate;
  const changed = () => gate.changed;
  if (holders.size === 0 && waiting.length === 0) {
    // A throttled gate outlives its window's last start: a new gate would not know of it.
    throttleOpen(gate); // drops the starts that left the window
    if (throttle && starts.length > 0) {
      await condition(changed, Math.max(1, starts[0]! + throttle.periodMs - Date.now()));
      return true;
    }
    return (await condition(changed, IDLE_MS)) || gate.granting !== 0;
  }
  if (waiting.length === 0) {
    await condition(changed);
    return true;
  }
  // Runs wait on a full throttle window only: the next grant when its oldest start leaves it.
  if (throttle && holders.size < limit) {
    if (starts.length === 0) await condition(changed);
    else await condition(changed, Math.max(1, starts[0]! + throttle.periodMs - Date.now()));
    return true;
  }
  if (gate.db) {
    await awaitDbSlots(gate);
    return true;
  }
  // Runs wait on full slots: the holders are checked once one has held its slot long enough,
  // and then again only after as long again.
  const oldest = Math.min(...holders.values());
  const due = Math.max(oldest, gate.checkedAt) + CHECK_HOLDERS_AFTER_MS - Date.now();
  if (due <= 0) await freeEnded(gate);
  else await condition(changed, due);
  return true;
}

export async function concurrencyGate(initial: GateState): Promise<void> {
  const gate: Gate = {
    holders: new Map(initial.holders.map(({ runId, since }) => [runId, since])),
    waiting: [...initial.waiting],
    limit: initial.limit,
    throttle: initial.throttle,
    starts: [...(initial.starts ?? [])],
    changed: false,
    granting: 0,
    checkedAt: 0,
    ...(initial.db ? { db: { ...initial.db, stale: true, checkedAt: Date.now() } } : {}),
  };
  handleMessages(gate, initial.key);

  for (;;) {
    gate.changed = false;
    if (gate.db?.stale && gate.waiting.length > 0) await readDbSlots(gate, initial.flowId);
    while (slotFree(gate) && gate.waiting.length > 0 && throttleOpen(gate)) {
      grant(gate, gate.waiting.shift()!);
    }
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > MAX_HISTORY_EVENTS) {
      await condition(() => gate.granting === 0 && allHandlersFinished());
      return continueAsNew<typeof concurrencyGate>(carriedState(initial, gate));
    }
    if (!(await awaitNext(gate))) return;
  }
}
