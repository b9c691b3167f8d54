import type { EventPayload } from "../../lib/events.js";

// Run events' data fields in the spec's order (PostgreSQL's jsonb keeps its own key order).
const RUN_FIELDS = ["run_id", "workflow_id", "workflow_name", "status", "duration_ms", "started_at", "finished_at"];

/** The exact JSON text a receiver gets: {event, timestamp, workspace_id, data}. */
export function deliveryBody(payload: Omit<EventPayload, "event"> & { event: string }): string {
  const data: Record<string, unknown> = {};
  for (const key of RUN_FIELDS) if (key in payload.data) data[key] = payload.data[key];
  for (const [key, value] of Object.entries(payload.data)) if (!(key in data)) data[key] = value;
  return JSON.stringify({
    event: payload.event,
    timestamp: payload.timestamp,
    workspace_id: payload.workspace_id,
    data,
  });
}
