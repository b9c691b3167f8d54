// Waits in the dashboard (wait nodes', agents' tool calls awaiting approval, model calls a budget
// holds back): the count of pending waits in the navigation, the inbox page, and a run's or an
// agent run's waits on its page (approve or reject with a comment, the resume URL to hand on).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Link } from "wouter";
import { apiUrl, client, describeError, read } from "../api";
import { formatJson, formatTime } from "../format";
import { pollInterval } from "../ui/poll-interval";
import { useCursorPages } from "../ui/cursor-pages";
import { ErrorMessage, StatusBadge } from "../ui/status-badge";
import type { Wait } from "../types";

/** The inbox holds at most this many in its count ("50+" beyond). */
const COUNTED = 50;
const INBOX_POLL_MS = 15_000;

/** "Waits" in the navigation, with how many the member may decide. */
export function PendingWaitsLink() {
  const pending = useQuery({
    queryKey: ["waits", "count"],
    queryFn: () => read(client.GET("/api/waits", { params: { query: { limit: COUNTED } } })),
    refetchInterval: INBOX_POLL_MS,
  });
  const count = pending.data?.items.length ?? 0;
  return (
    <Link href="/waits" aria-label={`Waits: ${count} pending`}>
      Waits
      {count > 0 && (
        <span className="badge status-pending" data-testid="pending-waits">
          {pending.data?.next_cursor ? `${count}+` : count}
        </span>
      )}
    </Link>
  );
}

const nodeLabel = (wait: Wait) =>
  wait.reason === "budget"
    ? "budget reached"
    : wait.tool
      ? `tool ${wait.tool.name}`
      : wait.node_name
        ? `${wait.node_name} (${wait.node_id})`
        : (wait.node_id ?? "");

/** Where the waiting run's page is: a flow run's, or an agent run's. */
const runPage = (wait: Wait) => (wait.run_id ? `/runs/${wait.run_id}` : `/agents/runs/${wait.agent_run_id}`);

/** The arguments an agent's model proposed for the call awaiting approval. */
function ProposedCall({ wait }: { wait: Wait }) {
  if (!wait.tool) return null;
  return (
    <details open>
      <summary>Arguments of {wait.tool.name}</summary>
      <pre>{formatJson(wait.tool.arguments)}</pre>
    </details>
  );
}

/** /waits: the pending waits the member may decide, newest first. */
export function WaitsPage() {
  const pages = useCursorPages();
  const waits = useQuery({
    queryKey: ["waits", "inbox", pages.cursor],
    queryFn: () => read(client.GET("/api/waits", { params: { query: { cursor: pages.cursor } } })),
    refetchInterval: INBOX_POLL_MS,
  });
  const items = waits.data?.items ?? [];
  return (
    <section>
      <h1>Waiting for you</h1>
      <ErrorMessage error={waits.error ? describeError(waits.error) : null} />
      {waits.data && items.length === 0 ? (
        <p className="empty">No run waits for a decision of yours.</p>
      ) : (
        <table className="list">
          <thead>
            <tr>
              <th>Flow or agent</th>
              <th>Node or tool</th>
              <th>Asks</th>
              <th>Since</th>
              <th>Expires</th>
              <th>Run</th>
            </tr>
          </thead>
          <tbody>
            {items.map((wait) => (
              <tr key={wait.id} data-wait={wait.id}>
                <td>{wait.flow_name ?? `agent ${wait.agent_id}`}</td>
                <td>{nodeLabel(wait)}</td>
                <td>
                  {wait.mode === "resume" ? "(resume by URL)" : (wait.message ?? "Approve or reject")}
                  <ProposedCall wait={wait} />
                </td>
                <td>{formatTime(wait.since)}</td>
                <td>{wait.expires_at ? formatTime(wait.expires_at) : "never"}</td>
                <td>
                  <Link href={runPage(wait)}>Open</Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {pages.pager(waits.data?.next_cursor)}
    </section>
  );
}

/** An approval the member may decide: a comment, Approve, Reject. */
function Decide({ wait, onDecided }: { wait: Wait; onDecided: () => void }) {
  const [comment, setComment] = useState("");
  const decide = useMutation({
    mutationFn: (decision: "approve" | "reject") =>
      read(
        client.POST("/api/waits/{id}/decision", {
          params: { path: { id: wait.id } },
          body: { decision, ...(comment.trim() ? { comment: comment.trim() } : {}) },
        }),
      ),
    onSuccess: onDecided,
  });
  return (
    <>
      <div className="toolbar">
        <input
          aria-label="Comment"
          placeholder="Comment (optional)"
          value={comment}
          maxLength={2000}
          onChange={(e) => setComment(e.target.value)}
        />
        <button type="button" disabled={decide.isPending} onClick={() => decide.mutate("approve")}>
          Approve
        </button>
        <button type="button" disabled={decide.isPending} onClick={() => decide.mutate("reject")}>
          Reject
        </button>
      </div>
      <ErrorMessage error={decide.error ? describeError(decide.error) : null} />
    </>
  );
}

/** The outcome of a settled wait, in words. */
function outcome(wait: Wait): string {
  if (wait.status === "decided") {
    const by = wait.decided_by ? ` by ${wait.decided_by.name}` : "";
    const comment = wait.comment ? `: “${wait.comment}”` : "";
    return `${wait.decision}${by} ${formatTime(wait.decided_at)}${comment}`;
  }
  return wait.status === "expired" ? "timed out" : "closed with the run";
}

/** The run's waits on its page, polled while the run runs. */
export function RunWaits({ runId, running }: { runId: string; running: boolean }) {
  return <WaitCards scope="run" id={runId} running={running} title="Waits" />;
}

/** An agent run's tool approvals on its page, polled while it runs. */
export function AgentRunWaits({ agentRunId, running }: { agentRunId: string; running: boolean }) {
  return <WaitCards scope="agent-run" id={agentRunId} running={running} title="Approvals" />;
}

/** The waits of a run (scope "run") or an agent run (scope "agent-run", its page's query key). */
function WaitCards({
  scope,
  id,
  running,
  title,
}: {
  scope: "run" | "agent-run";
  id: string;
  running: boolean;
  title: string;
}) {
  const queryClient = useQueryClient();
  const waits = useQuery({
    queryKey: [scope, id, "waits"],
    queryFn: (): Promise<{ items: Wait[] }> =>
      read(
        scope === "run"
          ? client.GET("/api/runs/{id}/waits", { params: { path: { id } } })
          : client.GET("/api/agent/runs/{id}/waits", { params: { path: { id } } }),
      ),
    refetchInterval: (query) => (running ? pollInterval(true, query.state.fetchFailureCount) : false),
  });
  // Read once more when the run ends: a wait settled since the last poll shows how.
  useEffect(() => {
    if (!running) void queryClient.invalidateQueries({ queryKey: [scope, id, "waits"] });
  }, [running, scope, id, queryClient]);
  const items = waits.data?.items ?? [];
  if (items.length === 0 && !waits.error) return null;
  const decided = () => {
    void queryClient.invalidateQueries({ queryKey: [scope, id] });
    void queryClient.invalidateQueries({ queryKey: ["waits"] });
  };
  return (
    <>
      <h2>{title}</h2>
      <ErrorMessage error={waits.error ? describeError(waits.error) : null} />
      {items.map((wait) => (
        <div className="card" key={wait.id} data-wait={wait.id}>
          <p>
            <strong>{nodeLabel(wait)}</strong> <StatusBadge status={wait.status} />{" "}
            <span className="muted small">
              {wait.mode} · since {formatTime(wait.since)}
              {wait.expires_at && ` · expires ${formatTime(wait.expires_at)}`}
            </span>
          </p>
          {wait.message && <p>{wait.message}</p>}
          <ProposedCall wait={wait} />
          {wait.status !== "pending" ? (
            <p className="muted">{outcome(wait)}</p>
          ) : wait.mode === "approval" ? (
            wait.can_decide ? (
              <Decide wait={wait} onDecided={decided} />
            ) : (
              <p className="muted small">Waiting for a member allowed to decide.</p>
            )
          ) : wait.resume_url ? (
            <p>
              Resume URL (single use; POST a JSON body, no login needed): <code>{apiUrl(wait.resume_url)}</code>
            </p>
          ) : (
            <p className="muted small">Waiting to be resumed through its URL.</p>
          )}
        </div>
      ))}
    </>
  );
}
