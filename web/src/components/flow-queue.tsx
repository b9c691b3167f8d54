// The "Queue" line of the editor's flow-control box: the flow's runs waiting at its concurrency or
// throttle gates now, per key, and the longest wait (GET /api/flows/{id}/queue), asked again every
// few seconds while the box is shown for a flow with a gate.
import { useQuery } from "@tanstack/react-query";
import { useRoute } from "wouter";
import { client, describeError, read } from "../api";
import { formatDuration } from "../format";
import type { FlowQueue } from "../types";

/** How often the queue is asked again. */
const QUEUE_REFRESH_MS = 3_000;
/** Keys named in the line; the others are counted in the total. */
const KEYS_SHOWN = 5;

const keyName = (key: string | null) => (key === null ? "(a key)" : key === "" ? "all runs" : key);

/** What the line says: the total waiting and the longest wait, then each key's waiting and running runs. */
export function queueText(queue: FlowQueue): string {
  if (queue.keys.length === 0) return "no run waiting or running";
  const total =
    queue.queued === 0
      ? "no run waiting"
      : `${queue.queued} waiting, longest for ${formatDuration(Math.round(queue.oldest_wait_seconds * 1000))}`;
  const keys = queue.keys
    .slice(0, KEYS_SHOWN)
    .map((k) => `${keyName(k.key)}: ${k.queued} waiting, ${k.running} of ${k.limit} running`);
  const more = queue.keys.length > KEYS_SHOWN ? [`${queue.keys.length - KEYS_SHOWN} more keys`] : [];
  return [total, ...keys, ...more].join("; ");
}

/** The flow's queue now, for the flow whose editor is open; nothing outside an editor page. */
export function FlowQueueLine({ gated }: { gated: boolean }) {
  const [, params] = useRoute("/flows/:id");
  const flowId = params?.id;
  const queue = useQuery({
    queryKey: ["flows", flowId, "queue"],
    queryFn: () => read(client.GET("/api/flows/{id}/queue", { params: { path: { id: flowId! } } })),
    enabled: gated && flowId !== undefined,
    refetchInterval: QUEUE_REFRESH_MS,
  });
  if (!gated || !flowId) return null;
  return (
    <p className="small" data-mark="flow-queue" aria-live="polite">
      <strong>Queue:</strong>{" "}
      {queue.data ? queueText(queue.data) : queue.error ? describeError(queue.error) : "reading…"}
    </p>
  );
}
