// Agents: start a run and watch its model and tool steps arrive (the model's text as it is
// written), deciding the tool calls that wait for approval; the agent's log and memory.
// /agents/runs/{id}: one agent run's page.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useForm } from "react-hook-form";
import { client, describeError, read } from "../api";
import { IN_ORDER, useCursorPages } from "../ui/cursor-pages";
import { McpServersEditor, McpServersOfRun, type McpServerEntry } from "../components/mcp-servers";
import { AgentRunWaits } from "../waits/waits";
import { AgentLiveText } from "./agent-text";
import { ErrorMessage, StatusBadge } from "../ui/status-badge";
import { formatDuration, formatJson, formatTime } from "../format";
import { formatCost } from "../cost";
import type { AgentTool } from "../types";
import { pollInterval } from "../ui/poll-interval";

function RunView({ id }: { id: string }) {
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
      {run.data.steps.length === 0 ? (
        <p className="muted">No step yet.</p>
      ) : (
        <table className="list cards">
          <tbody>
            {run.data.steps.map((step) => (
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
      )}
    </div>
  );
}

/** /agents/runs/{id}: one agent run, where the inbox sends a member to decide its approvals. */
export function AgentRunPage({ id }: { id: string }) {
  return (
    <section>
      <h1>Agent run</h1>
      <RunView id={id} />
    </section>
  );
}

export function AgentsPage() {
  const queryClient = useQueryClient();
  const startForm = useForm({
    defaultValues: { agent: "assistant", instructions: "", approval_tools: [] as AgentTool[] },
  });
  // The log and memory below follow the agent name as it is typed.
  const agent = startForm.watch("agent");
  const [runId, setRunId] = useState<string | null>(null);
  const memoryForm = useForm({ defaultValues: { key: "", value: "" } });
  const catalog = useQuery({
    queryKey: ["agents"],
    queryFn: () => read(client.GET("/api/agent/catalog")),
  });
  // The MCP servers whose tools the run may use (their credentials picked among the workspace's).
  const [mcpServers, setMcpServers] = useState<McpServerEntry[]>([]);
  const credentials = useQuery({
    queryKey: ["credentials", "mcp"],
    queryFn: () => read(client.GET("/api/credentials", { params: { query: { limit: 200 } } })),
  });
  const start = useMutation({
    mutationFn: ({ approval_tools, ...run }: { agent: string; instructions: string; approval_tools: AgentTool[] }) =>
      read(
        client.POST("/api/agent/run", {
          body: {
            ...run,
            ...(approval_tools.length > 0 ? { approval_tools } : {}),
            ...(mcpServers.length > 0 ? { mcp_servers: mcpServers } : {}),
          },
        }),
      ),
    onSuccess: (started) => setRunId(started.agent_run_id),
  });
  // Another agent's log starts at its newest page, its memory at its first.
  const logPages = useCursorPages({ resetOn: [agent] });
  const logs = useQuery({
    queryKey: ["agent-logs", agent, logPages.cursor],
    queryFn: () =>
      read(client.GET("/api/agent/logs", { params: { query: { agent, limit: 20, cursor: logPages.cursor } } })),
    refetchInterval: 5_000,
  });
  const memoryPages = useCursorPages({ labels: IN_ORDER, resetOn: [agent] });
  const memory = useQuery({
    queryKey: ["agent-memory", agent, memoryPages.cursor],
    queryFn: () =>
      read(
        client.GET("/api/agent/memory", { params: { query: { agent, limit: 20, cursor: memoryPages.cursor } } }),
      ).then((body) => ("items" in body ? body : { items: [body], next_cursor: null })),
  });
  const write = useMutation({
    mutationFn: ({ key, value }: { key: string; value: string }) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        parsed = value;
      }
      return read(client.POST("/api/agent/memory", { body: { agent, key, value: parsed } }));
    },
    onSuccess: () => {
      memoryForm.reset();
      void queryClient.invalidateQueries({ queryKey: ["agent-memory", agent] });
    },
  });

  return (
    <section>
      <h1>Agents</h1>
      <div className="card">
        <form className="stack" onSubmit={startForm.handleSubmit((run) => start.mutate(run))}>
          <label className="field">
            Agent (a preset, or a name of your own: memory is kept per name)
            <input list="agent-presets" required {...startForm.register("agent")} />
            <datalist id="agent-presets">
              {(catalog.data?.items ?? []).map((preset) => (
                <option key={preset.id} value={preset.id}>
                  {preset.name}
                </option>
              ))}
            </datalist>
          </label>
          <label className="field">
            Instructions
            <textarea rows={3} required {...startForm.register("instructions")} />
          </label>
          <fieldset className="choices">
            <legend>Ask a member before calling (the run waits in the inbox)</legend>
            {(catalog.data?.tools ?? []).map((tool) => (
              <label key={tool.name}>
                <input type="checkbox" value={tool.name} {...startForm.register("approval_tools")} />
                {tool.name}
              </label>
            ))}
          </fieldset>
          <fieldset className="mcp-servers">
            <legend>MCP servers whose tools the agent may use</legend>
            <McpServersEditor value={mcpServers} onChange={setMcpServers} credentials={credentials.data?.items} />
          </fieldset>
          <button type="submit" disabled={start.isPending}>
            Start agent run
          </button>
        </form>
        <ErrorMessage error={start.error ? describeError(start.error) : null} />
      </div>
      {runId && <RunView id={runId} />}
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
      <div className="card">
        <h2>Memory of {agent}</h2>
        <ErrorMessage error={memory.error ? describeError(memory.error) : null} />
        {(memory.data?.items ?? []).length === 0 ? (
          <p className="muted">No memory entries: the agent writes them with memory.write, or add one below.</p>
        ) : (
          <table className="list cards agent-memory">
            <tbody>
              {memory.data!.items.map((entry) => (
                <tr key={entry.key}>
                  <td>
                    <code>{entry.key}</code>
                  </td>
                  <td>
                    <pre>{formatJson(entry.value)}</pre>
                  </td>
                  <td className="muted small">{formatTime(entry.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {memoryPages.pager(memory.data?.next_cursor)}
        <form className="toolbar" onSubmit={memoryForm.handleSubmit((entry) => write.mutate(entry))}>
          <input aria-label="Memory key" placeholder="key" required {...memoryForm.register("key")} />
          <input
            aria-label="Memory value"
            placeholder="value (JSON or text)"
            required
            {...memoryForm.register("value")}
          />
          <button type="submit">Write</button>
        </form>
        <ErrorMessage error={write.error ? describeError(write.error) : null} />
      </div>
    </section>
  );
}
