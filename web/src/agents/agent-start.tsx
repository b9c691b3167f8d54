// Starting an agent run: the agent (a preset or a name of its own), the instructions, the tools
// that wait for a member's approval and the MCP servers whose tools it may use.
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { UseFormReturn } from "react-hook-form";
import { client, describeError, read } from "../api";
import { McpServersEditor, type McpServerEntry } from "../components/mcp-servers";
import type { AgentTool } from "../types";
import { ErrorMessage } from "../ui/status-badge";

export interface AgentStartFields {
  agent: string;
  instructions: string;
  approval_tools: AgentTool[];
}

export function AgentStart({
  form: startForm,
  onStarted,
}: {
  form: UseFormReturn<AgentStartFields>;
  onStarted: (agentRunId: string) => void;
}) {
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
    mutationFn: ({ approval_tools, ...run }: AgentStartFields) =>
      read(
        client.POST("/api/agent/run", {
          body: {
            ...run,
            ...(approval_tools.length > 0 ? { approval_tools } : {}),
            ...(mcpServers.length > 0 ? { mcp_servers: mcpServers } : {}),
          },
        }),
      ),
    onSuccess: (started) => onStarted(started.agent_run_id),
  });
  return (
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
  );
}
