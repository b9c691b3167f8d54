import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "wouter";
import { api, describeError } from "../api";
import { ErrorMessage, StatusBadge } from "../components/status-badge";
import { formatDuration, formatTime } from "../format";
import { RUN_TRIGGERS, type FlowListItem, type Page, type RunSummary } from "../types";
import { useCursorPages } from "../components/cursor-pages";

/** Polling: quick while something runs, slower when all is quiet, slower still after errors. */
export function pollInterval(running: boolean, failures: number): number {
  const base = running ? 1_000 : 5_000;
  return Math.min(base * 2 ** failures, 30_000);
}

/** The time window choices: the last so many milliseconds, or a custom range. */
const WINDOWS: Array<{ value: string; label: string; ms?: number }> = [
  { value: "", label: "Any time" },
  { value: "1h", label: "Last hour", ms: 3_600_000 },
  { value: "24h", label: "Last 24 hours", ms: 86_400_000 },
  { value: "7d", label: "Last 7 days", ms: 7 * 86_400_000 },
  { value: "custom", label: "Between…" },
];

/** A datetime-local value (the browser's time zone) as an instant the API accepts, or "". */
export function localToInstant(value: string): string {
  if (!value) return "";
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? "" : date.toISOString();
}

export function RunsPage() {
  const [status, setStatus] = useState("");
  const [flowId, setFlowId] = useState("");
  const [trigger, setTrigger] = useState("");
  const [timeWindow, setTimeWindow] = useState("");
  // A "last …" window is fixed when chosen, so that polling and paging keep one window.
  const [since, setSince] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const startedAfter = timeWindow === "custom" ? localToInstant(from) : since;
  const startedBefore = timeWindow === "custom" ? localToInstant(to) : "";
  const pages = useCursorPages({ resetOn: [status, flowId, trigger, startedAfter, startedBefore] });
  const flows = useQuery({
    queryKey: ["flows", "all"],
    queryFn: () => api<Page<FlowListItem>>("/api/flows?limit=200"),
  });
  const runs = useQuery({
    queryKey: ["runs", status, flowId, trigger, startedAfter, startedBefore, pages.cursor],
    queryFn: () => {
      const query = new URLSearchParams({ limit: "50" });
      if (status) query.set("status", status);
      if (flowId) query.set("flow_id", flowId);
      if (trigger) query.set("trigger", trigger);
      if (startedAfter) query.set("started_after", startedAfter);
      if (startedBefore) query.set("started_before", startedBefore);
      return api<Page<RunSummary>>(pages.path(`/api/runs?${query}`));
    },
    refetchInterval: (query) =>
      pollInterval(query.state.data?.items.some((r) => r.status === "running") ?? false, query.state.fetchFailureCount),
  });
  const items = runs.data?.items ?? [];
  const chooseWindow = (value: string) => {
    setTimeWindow(value);
    const ms = WINDOWS.find((w) => w.value === value)?.ms;
    setSince(ms ? new Date(Date.now() - ms).toISOString() : "");
  };
  const filtered = Boolean(status || flowId || trigger || startedAfter || startedBefore);

  return (
    <section>
      <h1>Runs</h1>
      <div className="toolbar">
        <select aria-label="Flow filter" value={flowId} onChange={(e) => setFlowId(e.target.value)}>
          <option value="">Every flow</option>
          {(flows.data?.items ?? []).map((f) => (
            <option key={f.id} value={f.id}>
              {f.name}
            </option>
          ))}
        </select>
        <select aria-label="Status filter" value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">Any status</option>
          {["running", "success", "failed", "cancelled"].map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <select aria-label="Trigger filter" value={trigger} onChange={(e) => setTrigger(e.target.value)}>
          <option value="">Any trigger</option>
          {RUN_TRIGGERS.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <select aria-label="Time filter" value={timeWindow} onChange={(e) => chooseWindow(e.target.value)}>
          {WINDOWS.map((w) => (
            <option key={w.value} value={w.value}>
              {w.label}
            </option>
          ))}
        </select>
        {timeWindow === "custom" && (
          <>
            <input
              type="datetime-local"
              aria-label="Started from"
              value={from}
              onChange={(e) => setFrom(e.target.value)}
            />
            <input
              type="datetime-local"
              aria-label="Started before"
              value={to}
              onChange={(e) => setTo(e.target.value)}
            />
          </>
        )}
      </div>
      <ErrorMessage error={runs.error ? describeError(runs.error) : null} />
      {runs.isPending ? (
        <p className="loading">Loading runs…</p>
      ) : items.length === 0 ? (
        <p className="empty">
          {filtered
            ? "No runs match these filters: change them, or widen the time window."
            : "No runs yet: open a flow and press Run, or call its hook URL."}
        </p>
      ) : (
        <table className="list cards">
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
                <td data-label="Flow">
                  {run.flow_name} <span className="muted">v{run.version}</span>
                </td>
                <td data-label="Status">
                  <StatusBadge status={run.status} />
                </td>
                <td data-label="Trigger">{run.trigger}</td>
                <td data-label="Started">{formatTime(run.started_at)}</td>
                <td data-label="Duration">{formatDuration(run.duration_ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {pages.pager(runs.data?.next_cursor)}
    </section>
  );
}
