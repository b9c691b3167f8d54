import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "wouter";
import { api, describeError } from "../api";
import { ErrorMessage, StatusBadge } from "../components/status-badge";
import { formatDuration, formatTime } from "../format";
import type { FlowListItem, Page, RunSummary } from "../types";
import { useCursorPages } from "../components/cursor-pages";

/** Polling: quick while something runs, slower when all is quiet, slower still after errors. */
export function pollInterval(running: boolean, failures: number): number {
  const base = running ? 1_000 : 5_000;
  return Math.min(base * 2 ** failures, 30_000);
}

export function RunsPage() {
  const [status, setStatus] = useState("");
  const [flowId, setFlowId] = useState("");
  const [trigger, setTrigger] = useState("");
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const flows = useQuery({
    queryKey: ["flows", "all"],
    queryFn: () => api<Page<FlowListItem>>("/api/flows?limit=200"),
  });
  const runs = useQuery({
    queryKey: ["runs", status, flowId, cursor],
    queryFn: () => {
      const query = new URLSearchParams({ limit: "50" });
      if (status) query.set("status", status);
      if (flowId) query.set("flow_id", flowId);
      if (cursor) query.set("cursor", cursor);
      return api<Page<RunSummary>>(`/api/runs?${query}`);
    },
    refetchInterval: (query) =>
      pollInterval(query.state.data?.items.some((r) => r.status === "running") ?? false, query.state.fetchFailureCount),
  });
  const items = (runs.data?.items ?? []).filter((run) => !trigger || run.trigger === trigger);
  const reset = () => pages.reset();

  return (
    <section>
      <h1>Runs</h1>
      <div className="toolbar">
        <select aria-label="Flow filter" value={flowId} onChange={(e) => (setFlowId(e.target.value), reset())}>
          <option value="">Every flow</option>
          {(flows.data?.items ?? []).map((f) => (
            <option key={f.id} value={f.id}>
              {f.name}
            </option>
          ))}
        </select>
        <select aria-label="Status filter" value={status} onChange={(e) => (setStatus(e.target.value), reset())}>
          <option value="">Any status</option>
          {["running", "success", "failed", "cancelled"].map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <select aria-label="Trigger filter" value={trigger} onChange={(e) => setTrigger(e.target.value)}>
          <option value="">Any trigger</option>
          {["api", "http_trigger", "webhook", "schedule", "retry", "loop", "agent"].map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </div>
      <ErrorMessage error={runs.error ? describeError(runs.error) : null} />
      {runs.isPending ? (
        <p className="loading">Loading runs…</p>
      ) : items.length === 0 ? (
        <p className="empty">
          No runs {status || flowId || trigger ? "match these filters" : "yet"}: open a flow and press Run, or call its
          hook URL.
        </p>
      ) : (
        <table className="list">
          <thead>
            <tr>
              <th>Run</th>
              <th>Flow</th>
              <th>Status</th>
              <th>Trigger</th>
              <th>Started</th>
              <th>Duration</th>
            </tr>
          </thead>
          <tbody>
            {items.map((run) => (
              <tr key={run.id}>
                <td>
                  <Link href={`/runs/${run.id}`}>{run.id}</Link>
                </td>
                <td>
                  {run.flow_name} <span className="muted">v{run.version}</span>
                </td>
                <td>
                  <StatusBadge status={run.status} />
                </td>
                <td>{run.trigger}</td>
                <td>{formatTime(run.started_at)}</td>
                <td>{formatDuration(run.duration_ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {pages.pager(runs.data?.next_cursor)}
    </section>
  );
}
