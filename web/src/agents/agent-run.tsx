// One agent run: its status, answer and error, the model's text as it is written, the tool calls
// waiting for approval, the MCP servers it used, and its steps with their input and output.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { client, describeError, read } from "../api";
import { McpServersOfRun } from "../components/mcp-servers";
import { formatCost } from "../cost";
import { formatDuration, formatJson, formatTime } from "../format";
import type { AgentStep } from "../types";
import { pollInterval } from "../ui/poll-interval";
import { ErrorMessage, StatusBadge } from "../ui/status-badge";
import { AgentRunWaits } from "../waits/waits";
import { AgentLiveText } from "./agent-text";

export function AgentRunView({ id }: { id: string }) {
  const run = useQuery({
    queryKey: ["agent-run", id],
    queryFn: () => read(client.GET("/api/agent/runs/{id}", { params: { path: { id } } })),
    refetchInterval: (query) =>
      query.state.data && query.state.data.agent_run.status !== "running"
        ? false
        : pollInterval(true, query.state.fetchFailureCount),
  });
  const cancel = useMutation({
    mutationFn: () => read(client.POST("/api/agent/runs/{id}/cancel", { params: { path: { id } } })),
  });
  // What the run wrote with its tools shows as soon as it ends, not at the next poll.
  const queryClient = useQueryClient();
  const ended = !!run.data && run.data.agent_run.status !== "running";
  useEffect(() => {
    if (!ended) return;
    void queryClient.invalidateQueries({ queryKey: ["agent-memory"] });
    void queryClient.invalidateQueries({ queryKey: ["agent-logs"] });
  }, [ended, queryClient]);
  if (run.error) return <ErrorMessage error={describeError(run.error)} />;
  if (!run.data) return <p className="loading">Loading the agent run…</p>;
  const r = run.data.agent_run;
  return (
    <div className="card" data-agent-run={r.id}>
      <h3>
        <code>{r.id}</code> <StatusBadge status={r.status} />
      </h3>
      <p className="muted small">
        {r.agent_id} · started {formatTime(r.started_at)} · {r.usage.total_tokens} tokens
        {r.cost !== undefined && r.cost !== null && <> · {formatCost(r.cost)}</>}
        {r.reason && <> · ended: {r.reason}</>}
        {r.approval_tools && r.approval_tools.length > 0 && <> · asks before: {r.approval_tools.join(", ")}</>}
      </p>
      {r.status === "running" && (
        <button type="button" onClick={() => cancel.mutate()}>
          Cancel
        </button>
      )}
      <ErrorMessage error={cancel.error ? describeError(cancel.error) : null} />
      {r.answer && (
        <>
          <h4>Answer</h4>
          <pre className="agent-answer">{r.answer}</pre>
        </>
      )}
      {r.error !== null && r.error !== undefined && <div className="run-error">{formatJson(r.error)}</div>}
      <AgentLiveText id={r.id} running={r.status === "running"} recorded={run.data.steps.map((step) => step.number)} />
      <AgentRunWaits agentRunId={r.id} running={r.status === "running"} />
      <McpServersOfRun steps={run.data.steps} />
      <h4>Steps</h4>
      <AgentSteps steps={run.data.steps} />
    </div>
  );
}

function AgentSteps({ steps }: { steps: AgentStep[] }) {
  return steps.length === 0 ? (
    <p className="muted">No step yet.</p>
  ) : (
    <table className="list cards">
      <tbody>
        {steps.map((step) => (
          <tr key={step.number} data-step-kind={step.kind} data-step-name={step.name ?? ""}>
            <td>{step.number}</td>
            <td>{step.kind}</td>
            <td>{step.name ?? ""}</td>
            <td>{formatDuration(step.duration_ms)}</td>
            <td>{step.cost !== null ? formatCost(step.cost) : ""}</td>
            <td>
              <details>
                <summary>input / output</summary>
                <pre>{formatJson(step.input)}</pre>
                <pre>{formatJson(step.error ?? step.output)}</pre>
              </details>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
