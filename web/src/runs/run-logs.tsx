// A run's log (GET /api/logs: log and debug nodes, a code node's console lines), for the whole run
// or one node, oldest first within a page; "Older" pages back. Polled while the run runs.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { client, describeError, read } from "../api";
import { formatJson, formatTime } from "../format";
import { pollInterval } from "../ui/poll-interval";
import type { LogEntry, LogLevel } from "../types";
import { useCursorPages } from "../ui/cursor-pages";
import { ErrorMessage, StatusBadge } from "../ui/status-badge";

const LEVELS = ["debug", "info", "warn", "error"] as const;

export function RunLogs(props: {
  runId: string;
  /** One node's entries only; otherwise the whole run's, with a filter by node. */
  nodeId?: string;
  running: boolean;
  /** The nodes to filter by (graph order) and how each is named. */
  nodes?: Array<{ id: string; label: string }>;
}) {
  const [pickedNode, setPickedNode] = useState("");
  const [level, setLevel] = useState("");
  const nodeId = props.nodeId ?? pickedNode;
  const pages = useCursorPages({ resetOn: [props.runId, nodeId, level] });
  const logs = useQuery({
    queryKey: ["run", props.runId, "logs", nodeId, level, pages.cursor],
    queryFn: () =>
      read(
        client.GET("/api/logs", {
          params: {
            query: {
              run_id: props.runId,
              limit: 50,
              cursor: pages.cursor,
              ...(nodeId ? { node_id: nodeId } : {}),
              ...(level ? { level: level as LogLevel } : {}),
            },
          },
        }),
      ),
    refetchInterval: (query) => (props.running ? pollInterval(true, query.state.fetchFailureCount) : false),
  });
  const labelOf = new Map((props.nodes ?? []).map((node) => [node.id, node.label]));
  // The API answers newest first; a log reads top to bottom.
  const entries = [...(logs.data?.items ?? [])].reverse();
  return (
    <div className="run-logs" data-logs={props.nodeId ?? "run"}>
      <LogFilters
        nodes={props.nodeId === undefined ? (props.nodes ?? []) : undefined}
        node={pickedNode}
        onNode={setPickedNode}
        level={level}
        onLevel={setLevel}
      />
      <ErrorMessage error={logs.error ? describeError(logs.error) : null} />
      {logs.isPending ? (
        <p className="loading">Loading the log…</p>
      ) : entries.length === 0 ? (
        <p className="muted small">
          {level || nodeId
            ? "No entries match."
            : "Nothing logged: log and debug nodes and a code node's console write here."}
        </p>
      ) : (
        <LogEntries entries={entries} labelOf={props.nodeId === undefined ? labelOf : undefined} />
      )}
      {pages.pager(logs.data?.next_cursor)}
    </div>
  );
}

/** Which node's entries (when the log is the whole run's) and from which level up. */
function LogFilters(props: {
  /** The nodes to pick among; undefined: the log is one node's. */
  nodes: Array<{ id: string; label: string }> | undefined;
  node: string;
  onNode: (nodeId: string) => void;
  level: string;
  onLevel: (level: string) => void;
}) {
  return (
    <div className="toolbar">
      {props.nodes !== undefined && (
        <select aria-label="Log of node" value={props.node} onChange={(e) => props.onNode(e.target.value)}>
          <option value="">Every node</option>
          {props.nodes.map((node) => (
            <option key={node.id} value={node.id}>
              {node.label}
            </option>
          ))}
        </select>
      )}
      <select aria-label="Least log level" value={props.level} onChange={(e) => props.onLevel(e.target.value)}>
        <option value="">Any level</option>
        {LEVELS.map((l) => (
          <option key={l} value={l}>
            {l} and above
          </option>
        ))}
      </select>
    </div>
  );
}

/** The entries, oldest first; each names its node when `labelOf` is given (the whole run's log). */
function LogEntries({ entries, labelOf }: { entries: LogEntry[]; labelOf: Map<string, string> | undefined }) {
  return (
    <ol className="log-entries">
      {entries.map((entry) => (
        <li key={entry.id} className={`log-${entry.level}`}>
          <span className="muted small">{formatTime(entry.created_at)}</span> <StatusBadge status={entry.level} />{" "}
          {labelOf && entry.node_id && <span className="log-node">{labelOf.get(entry.node_id) ?? entry.node_id}</span>}{" "}
          <span className="log-message">{entry.message}</span>
          {entry.data !== null && entry.data !== undefined && (
            <details>
              <summary className="small">data</summary>
              <pre>{formatJson(entry.data)}</pre>
            </details>
          )}
        </li>
      ))}
    </ol>
  );
}
