import type { AgentRunResult } from "../../../core/contracts/agent-run.js";
import { finishAgentRunRecord } from "../../../core/agents/agent-records.js";
import type { AgentActivityContext } from "./agent-context.js";

/** Ends the agent run once (only from running), with agent.completed in the same commit. */
export async function finishAgentRun(
  deps: Pick<AgentActivityContext, "prisma" | "clock" | "seal" | "metrics">,
  result: AgentRunResult & { workspaceId: string; agentId: string },
): Promise<boolean> {
  const ended = await finishAgentRunRecord(deps, result);
  if (ended && deps.metrics) {
    deps.metrics.agentRuns.inc({ status: result.status });
    deps.metrics.agentTokens.inc({ direction: "input" }, result.usage.input_tokens);
    deps.metrics.agentTokens.inc({ direction: "output" }, result.usage.output_tokens);
  }
  return ended;
}
