// An agent's log, its newest page first, refreshed; it follows the agent name as it is typed.
import { useQuery } from "@tanstack/react-query";
import { client, describeError, read } from "../api";
import { formatTime } from "../format";
import { useCursorPages } from "../ui/cursor-pages";
import { ErrorMessage, StatusBadge } from "../ui/status-badge";

export function AgentLog({ agent }: { agent: string }) {
  // Another agent's log starts at its newest page.
  const logPages = useCursorPages({ resetOn: [agent] });
  const logs = useQuery({
    queryKey: ["agent-logs", agent, logPages.cursor],
    queryFn: () =>
      read(client.GET("/api/agent/logs", { params: { query: { agent, limit: 20, cursor: logPages.cursor } } })),
    refetchInterval: 5_000,
  });
  return (
    <div className="card">
      <h2>Log of {agent}</h2>
      <ErrorMessage error={logs.error ? describeError(logs.error) : null} />
      {(logs.data?.items ?? []).length === 0 ? (
        <p className="muted">Nothing logged yet: entries appear when the agent runs.</p>
      ) : (
        <ul className="agent-log">
          {logs.data!.items.map((entry) => (
            <li key={entry.id}>
              <StatusBadge status={entry.level} /> {entry.message}{" "}
              <span className="muted small">{formatTime(entry.created_at)}</span>
            </li>
          ))}
        </ul>
      )}
      {logPages.pager(logs.data?.next_cursor)}
    </div>
  );
}
