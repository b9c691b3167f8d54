// A run's nodes that run per item (their items setting): each node's progress (done / failed /
// total) while it runs, and its items page by page with their results or errors
// (GET /api/runs/{id}/items and /items/{node_id}). Polled while the run runs.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { client, describeError, read } from "../api";
import type { components } from "../api-types";
import { formatJson } from "../format";
import { pollInterval } from "../ui/poll-interval";
import { IN_ORDER, useCursorPages } from "../ui/cursor-pages";
import { ErrorMessage, StatusBadge } from "../ui/status-badge";

interface Progress {
  node_id: string;
  total: number;
  done: number;
  failed: number;
}

export function RunItems({
  runId,
  running,
  labelOf,
}: {
  runId: string;
  running: boolean;
  labelOf: (nodeId: string) => string;
}) {
  const progress = useQuery({
    queryKey: ["run", runId, "items"],
    queryFn: () => read(client.GET("/api/runs/{id}/items", { params: { path: { id: runId } } })),
    refetchInterval: (query) => (running ? pollInterval(true, query.state.fetchFailureCount) : false),
  });
  const nodes = progress.data?.nodes ?? [];
  if (progress.error) return <ErrorMessage error={describeError(progress.error)} />;
  if (nodes.length === 0) return null;
  return (
    <>
      <h2>Items</h2>
      {nodes.map((node) => (
        <NodeItems key={node.node_id} runId={runId} running={running} progress={node} label={labelOf(node.node_id)} />
      ))}
    </>
  );
}

/** One node's progress bar and its items' table. */
function NodeItems({
  runId,
  running,
  progress,
  label,
}: {
  runId: string;
  running: boolean;
  progress: Progress;
  label: string;
}) {
  const [status, setStatus] = useState<"" | "success" | "failed">("");
  const pages = useCursorPages({ labels: IN_ORDER, resetOn: [runId, progress.node_id, status] });
  const items = useQuery({
    queryKey: ["run", runId, "items", progress.node_id, status, pages.cursor],
    queryFn: () =>
      read(
        client.GET("/api/runs/{id}/items/{node_id}", {
          params: {
            path: { id: runId, node_id: progress.node_id },
            query: { limit: 20, cursor: pages.cursor, ...(status ? { status } : {}) },
          },
        }),
      ),
    refetchInterval: (query) => (running ? pollInterval(true, query.state.fetchFailureCount) : false),
  });
  const finished = progress.done + progress.failed;
  return (
    <div className="run-items" data-items={progress.node_id}>
      <h3>{label}</h3>
      <p className="items-progress" role="status" aria-label={`Items of ${label}`}>
        <progress max={Math.max(progress.total, 1)} value={finished} /> {progress.done} done · {progress.failed} failed
        · {progress.total} in all
      </p>
      <div className="toolbar">
        <select
          aria-label={`Items of ${label} shown`}
          value={status}
          onChange={(e) => setStatus(e.target.value as typeof status)}
        >
          <option value="">Every item</option>
          <option value="success">Succeeded</option>
          <option value="failed">Failed</option>
        </select>
      </div>
      <ErrorMessage error={items.error ? describeError(items.error) : null} />
      {items.data && items.data.items.length === 0 ? (
        <p className="empty">{running ? "No item recorded yet." : "No item to show."}</p>
      ) : (
        <ItemsTable items={items.data?.items ?? []} />
      )}
      {pages.pager(items.data?.next_cursor)}
    </div>
  );
}

type RunItem = components["schemas"]["RunItem"];

/** A page of items: each one's status, and its result or error. */
function ItemsTable({ items }: { items: RunItem[] }) {
  return (
    <table className="list items">
      <thead>
        <tr>
          <th>#</th>
          <th>Status</th>
          <th>Result or error</th>
          <th>Attempt</th>
        </tr>
      </thead>
      <tbody>
        {items.map((item) => (
          <tr key={item.index} data-item={item.index}>
            <td>{item.index}</td>
            <td>
              <StatusBadge status={item.status} />
            </td>
            <td>
              {item.error ? (
                <span className="step-error">
                  {item.error.message} ({item.error.code})
                </span>
              ) : (
                <code className="item-result">{formatJson(item.result).slice(0, 300)}</code>
              )}
            </td>
            <td>{item.attempt}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
