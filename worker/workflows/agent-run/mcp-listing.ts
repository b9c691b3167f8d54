// At an agent's start, each MCP server it names lists its tools (an activity per server, in
// order): those offered join the run's state; what could not be offered (a server unreachable,
// tools left out) is told to the model after its instructions.
import { bookkeeping } from "./activity-options.js";
import type { AgentRunState } from "./agent-state.js";

export async function listMcpTools(state: AgentRunState): Promise<void> {
  const { input } = state;
  const notes: string[] = [];
  for (const [serverIndex, server] of (input.mcpServers ?? []).entries()) {
    const listed = await bookkeeping.agentListMcpTools({
      agentRunId: input.agentRunId,
      workspaceId: input.workspaceId,
      number: ++state.number,
      server,
      serverIndex,
      offeredBefore: state.mcpTools.length,
    });
    state.mcpTools.push(...listed.offers);
    if (listed.note) notes.push(listed.note);
  }
  const first = state.messages[0];
  if (notes.length > 0 && first?.role === "user") first.content = `${first.content}\n\n${notes.join("\n")}`;
}
