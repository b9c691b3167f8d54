// A queued run's status in the runs list: the badge, and why it waits ("waiting for a concurrency
// slot of key acme", its place) as its gate tells it. The list itself does not carry the reason
// (reading it asks the gates): the page asks for every queued run it shows in one request
// (GET /api/runs/queues, one gate query per gate), again every few seconds.
import { useQuery } from "@tanstack/react-query";
import { client, read } from "../api";
import type { RunSummary } from "../types";
import { StatusBadge } from "../ui/status-badge";

/** Queued runs asked at once: the API's most (a page of the runs list). */
export const QUEUED_PLACES_PER_ASK = 50;
/** How often the reasons (and places) are asked again. */
const REASON_REFRESH_MS = 5_000;

/** A waiting run's place, as GET /api/runs/queues answers it. */
export interface QueuedPlace {
  reason: string;
  position: number;
}

/** The ids of the page's queued runs, the first QUEUED_PLACES_PER_ASK. */
export const queuedRunIds = (items: ReadonlyArray<Pick<RunSummary, "id" | "status">>) =>
  items
    .filter((run) => run.status === "queued")
    .slice(0, QUEUED_PLACES_PER_ASK)
    .map((run) => run.id);

/** The places of the page's queued runs, by run id, asked in one request (none while nothing is queued). */
export function useQueuedPlaces(items: ReadonlyArray<Pick<RunSummary, "id" | "status">>): Map<string, QueuedPlace> {
  const ids = queuedRunIds(items);
  const places = useQuery({
    queryKey: ["runs", "queues", ids],
    queryFn: () => read(client.GET("/api/runs/queues", { params: { query: { ids: ids.join(",") } } })),
    enabled: ids.length > 0,
    refetchInterval: REASON_REFRESH_MS,
  });
  return new Map((places.data?.items ?? []).map((item) => [item.run_id, item]));
}

export function QueuedRunStatus({ place }: { place: QueuedPlace | undefined }) {
  const reason = place ? `${place.reason} (place ${place.position})` : "waiting at its flow's gate";
  return (
    <>
      <StatusBadge status="queued" />
      <div className="small muted" data-mark="queue-reason" title={place ? undefined : "Open the run for its place"}>
        {reason}
      </div>
    </>
  );
}
