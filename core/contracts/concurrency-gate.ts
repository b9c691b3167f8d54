// What a run of a flow with `concurrency` and its gate exchange (docs/engine.md, "Concurrency
// gates"). One gate workflow per flow and key holds the slots: a run asks for one (an activity
// signals the gate, starting it if need be), waits for the grant before any node, and gives it
// back on every end. Workflow code imports it: no I/O here.
import { defineQuery, defineSignal } from "@temporalio/workflow";

export const CONCURRENCY_GATE_WORKFLOW = "concurrencyGate";

/** A run asking its gate for a slot (sent with signalWithStart by the requestSlot activity). */
export interface SlotRequest {
  runId: string;
  /** The flow's limit in the run's version: the gate follows the latest request's. */
  limit: number;
  /** The flow's throttle in the run's version, if any: the gate follows the latest request's. */
  throttle?: ThrottleRule;
  /** The run's start (its record's started_at): the gate grants in this order. */
  startedAt: string;
  /**
   * The run was counted as sent to the gate in PostgreSQL (core/engine/concurrency-slots.ts):
   * the gate counts the slots held in the database (its key's hash names them) as taken.
   * Absent in requests of before database slots: those gates issue the commands they did.
   */
  db?: { keyHash: string };
}

/** At most `limit` grants per `periodMs` (workflow time). */
export interface ThrottleRule {
  limit: number;
  periodMs: number;
}

export const requestSlotSignal = defineSignal<[SlotRequest]>("requestSlot");
/** A run gives its slot back, or stops waiting for one (cancelled while queued). */
export const releaseSlotSignal = defineSignal<[{ runId: string }]>("releaseSlot");
/** The gate grants a run its slot: the run's nodes may start. */
export const slotGrantedSignal = defineSignal<[{ gateId: string }]>("slotGranted");

/**
 * A gate's holders and its queue in grant order (run ids): a queued run's position is its index + 1.
 * `key`: the rendered key ("" without one; a payload, sealed like the gate's input), absent from
 * gates of workers before it.
 */
export const gateQueueQuery = defineQuery<{ limit: number; holders: string[]; waiting: string[]; key?: string }>(
  "gateQueue",
);

/** What a gate holds, carried over when it continues as new. */
export interface GateState {
  flowId: string;
  workspaceId: string;
  /** The rendered key ("" for a flow without one), kept in the gate's (encrypted) input only. */
  key: string;
  limit: number;
  /** The throttle rule, when the flow has one. */
  throttle?: ThrottleRule;
  /** Grants within the throttle's last period (workflow time, ms, oldest first). */
  starts?: number[];
  /** Runs holding a slot, with when they got it (workflow time, ms). */
  holders: Array<{ runId: string; since: number }>;
  /** Runs waiting, in grant order. */
  waiting: SlotRequest[];
  /** Slots held in the database, as last read (see SlotRequest.db). */
  db?: { keyHash: string; held: number };
}

/** What the requestSlot activity gets from the run. */
export interface RequestSlotInput {
  runId: string;
  flowId: string;
  workspaceId: string;
  startedAt: string;
  limit: number;
  throttle?: ThrottleRule;
  /** The key as the run's input renders it ("" without a key): the activity names its gate. */
  key: string;
  /** The run is counted in PostgreSQL as sent to the gate (SlotRequest.db). */
  dbCounted?: boolean;
}

/** The gate the run asked (its workflow id), and its key as the run's status shows it. */
export interface RequestSlotResult {
  gateId: string;
  key: string;
}
