// A run page's heading: its id and status, what it ran and why (retry, rerun, caller), where it queues.
import { Link } from "wouter";
import { formatDuration, formatTime } from "../format";
import type { RunDetail } from "../types";
import { StatusBadge } from "../ui/status-badge";

/** Where a rerun started from, in words. */
function RerunOf({ run, labelOf }: { run: RunDetail; labelOf: (nodeId: string) => string }) {
  return (
    <span className="rerun-of">
      {" "}
      · Rerun of <Link href={`/runs/${run.rerun_of}`}>{run.rerun_of}</Link> from{" "}
      {run.rerun_from_node
        ? labelOf(run.rerun_from_node)
        : run.rerun?.from === "failed"
          ? "the failed node"
          : "the start"}{" "}
      on version {run.version}
      {run.rerun && run.rerun.of_version !== run.version && ` (it ran version ${run.rerun.of_version})`}
    </span>
  );
}

export function RunHeading({ run: r, labelOf }: { run: RunDetail; labelOf: (nodeId: string) => string }) {
  return (
    <>
      <p>
        <Link href="/runs">← Runs</Link>
      </p>
      <h1>
        Run <code>{r.id}</code> <StatusBadge status={r.status} />
      </h1>
      <p className="muted">
        <Link href={`/flows/${r.flow_id}`}>{r.flow_name}</Link> v{r.version} · {r.trigger} · started{" "}
        {formatTime(r.started_at)} · {formatDuration(r.duration_ms)}
        {r.retry_of && (
          <>
            {" "}
            · retry of <Link href={`/runs/${r.retry_of}`}>{r.retry_of}</Link>
          </>
        )}
        {!r.retry_of && r.rerun_of && <RerunOf run={r} labelOf={labelOf} />}
        {r.parent_run_id && (
          <>
            {" "}
            · called by run <Link href={`/runs/${r.parent_run_id}`}>{r.parent_run_id}</Link>
          </>
        )}
        {r.temporal_url && (
          <>
            {" "}
            ·{" "}
            <a href={r.temporal_url} target="_blank" rel="noreferrer">
              Temporal UI
            </a>
          </>
        )}
      </p>
      {r.queue && (
        <p className="run-queue" role="status">
          Queued: {r.queue.reason} (position {r.queue.position})
        </p>
      )}
    </>
  );
}
