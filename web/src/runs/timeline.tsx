// A run's steps as bars on a time axis: parallel branches overlap, waits show as gaps.
import type { Step } from "../types";
import { handledFailure } from "../components/node-settings";

export interface Bar {
  key: string;
  label: string;
  status: string;
  /** Percent of the axis. */
  left: number;
  width: number;
  durationMs: number;
}

/**
 * Bars from step timings; an unfinished step runs until `now`. Steps a retry carried over did not
 * run in it: they have no bar. `labelOf` names a node (its name, else its id).
 */
export function timelineBars(
  steps: Step[],
  now: number,
  labelOf: (nodeId: string) => string = (nodeId) => nodeId,
): { bars: Bar[]; spanMs: number } {
  const timed = steps.filter((s) => s.started_at && !s.carried_over_from);
  if (timed.length === 0) return { bars: [], spanMs: 0 };
  const start = Math.min(...timed.map((s) => Date.parse(s.started_at!)));
  const endOf = (s: Step) => (s.finished_at ? Date.parse(s.finished_at) : now);
  const end = Math.max(...timed.map(endOf), start + 1);
  const span = end - start;
  return {
    spanMs: span,
    bars: timed.map((s) => {
      const from = Date.parse(s.started_at!) - start;
      const duration = Math.max(endOf(s) - Date.parse(s.started_at!), 0);
      return {
        key: `${s.node_id}-${s.attempt}`,
        label: s.attempt > 1 ? `${labelOf(s.node_id)} (attempt ${s.attempt})` : labelOf(s.node_id),
        status: handledFailure(s) ? "handled" : s.status,
        left: (from / span) * 100,
        width: Math.max((duration / span) * 100, 0.5),
        durationMs: duration,
      };
    }),
  };
}

export function Timeline(props: { steps: Step[]; now: number; labelOf?: (nodeId: string) => string }) {
  const { bars, spanMs } = timelineBars(props.steps, props.now, props.labelOf);
  if (bars.length === 0) return <p className="muted">No step has started yet.</p>;
  return (
    <div className="timeline" aria-label="Timeline">
      {bars.map((bar) => (
        <div key={bar.key} className="timeline-row">
          <span className="timeline-label" title={bar.label}>
            {bar.label}
          </span>
          <span className="timeline-track">
            <span
              className={`timeline-bar status-${bar.status}`}
              style={{ left: `${bar.left}%`, width: `${bar.width}%` }}
              title={`${bar.durationMs} ms`}
            />
          </span>
        </div>
      ))}
      <div className="timeline-axis">
        <span>0</span>
        <span>{spanMs} ms</span>
      </div>
    </div>
  );
}
