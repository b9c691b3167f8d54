// The usage page's figures and tables: cost today and in the range, calls and tokens; cost by flow
// and by model.
import { Link } from "wouter";
import { formatCost, formatTokens } from "../cost";
import type { WorkspaceUsage } from "../types";

export function UsageFigures({ usage: u, days }: { usage: WorkspaceUsage; days: number }) {
  const today = u.days.at(-1);
  return (
    <div className="figures">
      <div className="figure" data-figure="today">
        <span>Cost today</span>
        <strong>{formatCost(today?.cost ?? 0)}</strong>
      </div>
      <div className="figure" data-figure="range">
        <span>Cost, last {days} days</span>
        <strong>{formatCost(u.total.cost)}</strong>
      </div>
      <div className="figure">
        <span>Model calls</span>
        <strong>{formatTokens(u.total.calls)}</strong>
      </div>
      <div className="figure">
        <span>Tokens in / out</span>
        <strong>
          {formatTokens(u.total.input_tokens)} / {formatTokens(u.total.output_tokens)}
        </strong>
      </div>
    </div>
  );
}

export function FlowCosts({ flows }: { flows: WorkspaceUsage["flows"] }) {
  return flows.length === 0 ? (
    <p className="muted">No model calls in this range.</p>
  ) : (
    <table className="list cards">
      <thead>
        <tr>
          <th>Flow</th>
          <th>Calls</th>
          <th>Tokens</th>
          <th>Cost</th>
        </tr>
      </thead>
      <tbody>
        {flows.map((f) => (
          <tr key={f.flow_id ?? "api"}>
            <td>
              {f.flow_id ? (
                <Link href={`/usage?flow=${f.flow_id}`}>{f.flow_name ?? f.flow_id}</Link>
              ) : (
                <span className="muted">agent runs of the API</span>
              )}
            </td>
            <td data-label="Calls">{f.calls}</td>
            <td data-label="Tokens">{formatTokens(f.input_tokens + f.output_tokens)}</td>
            <td data-label="Cost">{formatCost(f.cost)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ModelCosts({ models }: { models: WorkspaceUsage["models"] }) {
  return models.length === 0 ? (
    <p className="muted">No model calls in this range.</p>
  ) : (
    <table className="list cards">
      <thead>
        <tr>
          <th>Model</th>
          <th>Calls</th>
          <th>Tokens in / out</th>
          <th>Cost</th>
        </tr>
      </thead>
      <tbody>
        {models.map((m) => (
          <tr key={`${m.provider}/${m.model}`}>
            <td>
              {m.provider} <code>{m.model}</code>
            </td>
            <td data-label="Calls">{m.calls}</td>
            <td data-label="Tokens">
              {formatTokens(m.input_tokens)} / {formatTokens(m.output_tokens)}
            </td>
            <td data-label="Cost">{m.unpriced_calls === m.calls ? "no price" : formatCost(m.cost)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
