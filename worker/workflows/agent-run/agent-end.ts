// The end of an agent run: its result, recorded once by finishAgentRun.
import { CancellationScope } from "@temporalio/workflow";
import type { AgentEndReason, AgentRunResult } from "../../../core/contracts/agent-run.js";
import { bookkeeping } from "./activity-options.js";
import type { AgentRunState } from "./agent-state.js";

export async function endAgentRun(
  state: AgentRunState,
  status: AgentRunResult["status"],
  reason: AgentEndReason,
  answer: string | null,
  error?: string,
): Promise<AgentRunResult> {
  const { input } = state;
  const result: AgentRunResult = {
    agentRunId: input.agentRunId,
    status,
    reason,
    answer,
    ...(error ? { error } : {}),
    steps: state.modelCalls,
    usage: state.usage,
  };
  // Recorded even when the run is being cancelled.
  await CancellationScope.nonCancellable(() =>
    bookkeeping.finishAgentRun({ ...result, workspaceId: input.workspaceId, agentId: input.agentId }),
  );
  return result;
}
