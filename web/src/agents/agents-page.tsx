// Agents: start a run and watch its model and tool steps arrive (the model's text as it is
// written), deciding the tool calls that wait for approval; the agent's log and memory.
// /agents/runs/{id}: one agent run's page.
import { useState } from "react";
import { useForm } from "react-hook-form";
import { AgentLog } from "./agent-log";
import { AgentMemory } from "./agent-memory";
import { AgentRunView } from "./agent-run";
import { AgentStart, type AgentStartFields } from "./agent-start";

/** /agents/runs/{id}: one agent run, where the inbox sends a member to decide its approvals. */
export function AgentRunPage({ id }: { id: string }) {
  return (
    <section>
      <h1>Agent run</h1>
      <AgentRunView id={id} />
    </section>
  );
}

export function AgentsPage() {
  const startForm = useForm<AgentStartFields>({
    defaultValues: { agent: "assistant", instructions: "", approval_tools: [] },
  });
  // The log and memory below follow the agent name as it is typed.
  const agent = startForm.watch("agent");
  const [runId, setRunId] = useState<string | null>(null);
  return (
    <section>
      <h1>Agents</h1>
      <AgentStart form={startForm} onStarted={setRunId} />
      {runId && <AgentRunView id={runId} />}
      <AgentLog agent={agent} />
      <AgentMemory agent={agent} />
    </section>
  );
}
