// The runs list's table (cards under 768 px): a line per run with its selection box, the run it
// reruns and how often it was rerun, its flow, status, trigger, times and error; or what stands
// for it when there is none.
import { Link } from "wouter";
import { QueuedRunStatus, useQueuedPlaces } from "../components/queued-run-status";
import { formatDuration, formatTime } from "../format";
import type { RunSummary } from "../types";
import { StatusBadge } from "../ui/status-badge";
import { rerunOfLabel, rerunsLabel } from "./runs-view";

/** Under a run's id: the run it reruns or retries (linked), and how often it was rerun since. */
function RerunMarks({ run }: { run: RunSummary }) {
  const of = rerunOfLabel(run);
  const reruns = rerunsLabel(run.reruns);
  return (
    <>
      {of && run.rerun_of && (
        <div className="small muted" data-mark="rerun-of">
          {of} <Link href={`/runs/${run.rerun_of}`}>{run.rerun_of}</Link>
        </div>
      )}
      {reruns && (
        <div className="small">
          <span className="badge" data-mark="reruns">
            {reruns}
          </span>
        </div>
      )}
    </>
  );
}

function RunsTable(props: {
  items: RunSummary[];
  selected: Set<string>;
  onSelect: (ids: string[], on: boolean) => void;
}) {
  const allOn = props.items.length > 0 && props.items.every((run) => props.selected.has(run.id));
  const queuedPlaces = useQueuedPlaces(props.items);
  return (
    <table className="list cards">
      <thead>
        <tr>
          <th className="select">
            <input
              type="checkbox"
              aria-label="Select every run on this page"
              checked={allOn}
              onChange={(e) =>
                props.onSelect(
                  props.items.map((run) => run.id),
                  e.target.checked,
                )
              }
            />
          </th>
          <th>Run</th>
          <th>Flow</th>
          <th>Status</th>
          <th>Trigger</th>
          <th>Started</th>
          <th>Duration</th>
          <th>Error</th>
        </tr>
      </thead>
      <tbody>
        {props.items.map((run) => (
          <tr key={run.id} data-run={run.id}>
            <td className="select">
              <input
                type="checkbox"
                aria-label={`Select ${run.id}`}
                checked={props.selected.has(run.id)}
                onChange={(e) => props.onSelect([run.id], e.target.checked)}
              />
            </td>
            <td>
              <Link href={`/runs/${run.id}`}>{run.id}</Link>
              <RerunMarks run={run} />
            </td>
            <td data-label="Flow">
              {run.flow_name} <span className="muted">v{run.version}</span>
            </td>
            <td data-label="Status">
              {run.status === "queued" ? (
                <QueuedRunStatus place={queuedPlaces.get(run.id)} />
              ) : (
                <StatusBadge status={run.status} />
              )}
            </td>
            <td data-label="Trigger">{run.trigger}</td>
            <td data-label="Started">{formatTime(run.started_at)}</td>
            <td data-label="Duration">{formatDuration(run.duration_ms)}</td>
            <td className="run-error-line" {...(run.error ? { "data-label": "Error", title: run.error } : {})}>
              {run.error}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The page of runs, or what stands for it: loading, none (and why), or nothing when the query was refused (said above). */
export function RunsListBody(props: {
  pending: boolean;
  refused: boolean;
  filtered: boolean;
  items: RunSummary[];
  selected: Set<string>;
  onSelect: (ids: string[], on: boolean) => void;
}) {
  if (props.pending) return <p className="loading">Loading runs…</p>;
  if (props.items.length > 0)
    return <RunsTable items={props.items} selected={props.selected} onSelect={props.onSelect} />;
  // A refused filter lists nothing and says why above, not that no run matches.
  if (props.refused) return null;
  return (
    <p className="empty">
      {props.filtered
        ? "No runs match these filters: change them, or widen the time window."
        : "No runs yet: open a flow and press Run, or call its hook URL."}
    </p>
  );
}
