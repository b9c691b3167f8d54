// Home's figures (runs today, success rate, durations, deliveries) and its busiest flows of the week.
import { Link } from "wouter";
import { formatDuration } from "../format";
import type { Metrics } from "../types";

const percent = (rate: number | null) => (rate === null ? "—" : `${Math.round(rate * 100)} %`);

export function HomeFigures({ metrics: m }: { metrics: Metrics }) {
  return (
    <div className="figures">
      <div className="figure">
        <span>Runs today</span>
        <strong>{m.runs.last_day.total}</strong>
      </div>
      <div className="figure">
        <span>Success rate (week)</span>
        <strong>{percent(m.runs.last_week.success_rate)}</strong>
      </div>
      <div className="figure">
        <span>p50 duration</span>
        <strong>{formatDuration(m.duration_ms.p50)}</strong>
      </div>
      <div className="figure">
        <span>p95 duration</span>
        <strong>{formatDuration(m.duration_ms.p95)}</strong>
      </div>
      <div className="figure">
        <span>Webhook deliveries ok</span>
        <strong>{percent(m.webhook_deliveries.success_rate)}</strong>
      </div>
    </div>
  );
}

/** The eight flows that ran most this week, each with a meter of its successes and failures. */
export function BusiestFlows({ flows }: { flows: Metrics["runs_per_flow"] }) {
  const busiest = flows.slice(0, 8);
  const most = Math.max(1, ...busiest.map((f) => f.total));
  if (busiest.length === 0) return <p className="muted">Nothing ran this week.</p>;
  return (
    <ul className="busiest">
      {busiest.map((flow) => (
        <li key={flow.flow_id}>
          <Link href={`/flows/${flow.flow_id}`}>{flow.flow_name}</Link>
          <span className="meter">
            <span className="meter-ok" style={{ width: `${(flow.success / most) * 100}%` }} />
            <span className="meter-failed" style={{ width: `${(flow.failed / most) * 100}%` }} />
          </span>
          <span className="muted">
            {flow.total} runs, {flow.failed} failed
          </span>
        </li>
      ))}
    </ul>
  );
}
