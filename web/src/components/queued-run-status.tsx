// A queued run's status in the runs list: the badge, and why it waits ("waiting for a concurrency
// slot of key acme", its place) as GET /api/runs/{id} tells it from the run's gate. The list itself
// does not carry the reason (it would ask every gate per page): the first queued runs of a page
// ask their own, the others say it on the run's page.
import { useQuery } from "@tanstack/react-query";
import { client, read } from "../api";
import type { RunSummary } from "../types";
import { StatusBadge } from "../ui/status-badge";

/** Queued runs of a page that ask for their reason; the rest point to their page. */
export const QUEUED_REASONS_PER_PAGE = 10;
/** How often a shown reason (and place) is asked again. */
const REASON_REFRESH_MS = 5_000;

/** The ids of the page's queued runs that show their reason: the first QUEUED_REASONS_PER_PAGE. */
export const queuedReasonsAsked = (items: ReadonlyArray<Pick<RunSummary, "id" | "status">>) =>
  items
    .filter((run) => run.status === "queued")
    .slice(0, QUEUED_REASONS_PER_PAGE)
    .map((run) => run.id);

export function QueuedRunStatus({ runId, ask }: { runId: string; ask: boolean }) {
  const run = useQuery({
    queryKey: ["runs", runId, "queue"],
    queryFn: () => read(client.GET("/api/runs/{id}", { params: { path: { id: runId } } })),
    enabled: ask,
    refetchInterval: REASON_REFRESH_MS,
  });
  const queue = run.data?.run.queue;
  const reason = queue ? `${queue.reason} (place ${queue.position})` : "waiting at its flow's gate";
  return (
    <>
      <StatusBadge status="queued" />
      <div className="small muted" data-mark="queue-reason" title={ask ? undefined : "Open the run for its place"}>
        {reason}
      </div>
    </>
  );
}
