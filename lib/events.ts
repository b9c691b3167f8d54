import type { Clock } from "./clock.js";
import type { PrismaClient } from "./db.js";
import { newId } from "./ids.js";

/**
 * The spec's five events, run.waiting (ours: a wait node began to wait, README "Events") and
 * budget.reached (ours: a model call found a budget reached and waits for an admin).
 */
export const EVENT_TYPES = [
  "run.started",
  "run.completed",
  "run.failed",
  "flow.updated",
  "agent.completed",
  "run.waiting",
  "budget.reached",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The spec's webhook body. */
export interface EventPayload {
  event: EventType;
  timestamp: string;
  workspace_id: string;
  data: Record<string, unknown>;
}

/**
 * The webhook body around an event's data: the one definition of its fields, filled with values
 * (eventRecord) or with SQL expressions (a statement that writes the event as it changes a row).
 */
export function eventEnvelope<F extends Record<"event" | "timestamp" | "workspaceId" | "data", unknown>>(
  fields: F,
): { event: F["event"]; timestamp: F["timestamp"]; workspace_id: F["workspaceId"]; data: F["data"] } {
  return { event: fields.event, timestamp: fields.timestamp, workspace_id: fields.workspaceId, data: fields.data };
}

/** A Prisma client or the client of an interactive transaction. */
type Db = Pick<PrismaClient, "event">;

/** The outbox row of an event, for callers that batch it with other writes. */
export function eventRecord(clock: Clock, workspaceId: string, event: EventType, data: Record<string, unknown>) {
  const now = clock.now();
  const payload: EventPayload = eventEnvelope({ event, timestamp: now.toISOString(), workspaceId, data });
  return { id: newId("evt"), workspaceId, type: event, payload: payload as object, createdAt: now };
}

/**
 * The one internal event function: records the event in the outbox, inside the caller's
 * transaction when given one, so an event exists exactly when the change it reports does.
 * Webhook deliveries are made from the outbox.
 */
export async function emitEvent(
  db: Db,
  clock: Clock,
  workspaceId: string,
  event: EventType,
  data: Record<string, unknown>,
): Promise<EventPayload & { id: string }> {
  const record = eventRecord(clock, workspaceId, event, data);
  await db.event.create({ data: record });
  return { id: record.id, ...(record.payload as EventPayload) };
}

const PURGE_BATCH = 5000;
const PURGE_BATCHES_PER_PASS = 40;

/** Deletes events dispatched before `before`, in batches (at most 200,000 a pass). */
export async function purgeDispatchedEvents(prisma: PrismaClient, before: Date): Promise<number> {
  let purged = 0;
  for (let batch = 0; batch < PURGE_BATCHES_PER_PASS; batch++) {
    const count = await prisma.$executeRaw`
      DELETE FROM events WHERE id IN (
        SELECT id FROM events WHERE dispatched_at IS NOT NULL AND dispatched_at < ${before}
        ORDER BY dispatched_at LIMIT ${PURGE_BATCH})`;
    purged += count;
    if (count < PURGE_BATCH) break;
  }
  return purged;
}
