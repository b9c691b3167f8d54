// One turn of the agent's loop: unless a limit is reached, a model call with the conversation so
// far, then the tool calls of its reply. A reply without tool calls is the agent's answer.
import { ActivityFailure, ApplicationFailure, isCancellation } from "@temporalio/workflow";
import type { AgentEndReason, AgentRunResult, ModelCallResult } from "../../../core/contracts/agent-run.js";
import { modelActivities } from "./activity-options.js";
import { endAgentRun } from "./agent-end.js";
import { timeLeft, type AgentRunState } from "./agent-state.js";
import { awaitBudgetDecision } from "./budget.js";
import { runToolCalls } from "./tool-calls.js";

interface Failed {
  reason: AgentEndReason;
  error: string;
}

/** The run's end when this turn ended it, else undefined (the loop goes on). */
export async function takeTurn(state: AgentRunState): Promise<AgentRunResult | undefined> {
  const left = timeLeft(state);
  const limit = limitReached(state, left);
  if (limit) return endAgentRun(state, "failed", limit.reason, null, limit.error);
  const reply = await callWithinBudget(state, left);
  if ("status" in reply) return reply;
  if ("reason" in reply) return endAgentRun(state, "failed", reply.reason, null, reply.error);
  state.modelCalls++;
  state.usage.input_tokens += reply.usage.input_tokens;
  state.usage.output_tokens += reply.usage.output_tokens;
  state.usage.total_tokens += reply.usage.total_tokens;
  state.messages.push({ role: "assistant", content: reply.text, toolCalls: reply.toolCalls });
  if (reply.toolCalls.length === 0) return endAgentRun(state, "success", "answered", reply.text);
  return runToolCalls(state, reply.toolCalls);
}

/**
 * The model's reply. A call a budget holds back waits for an admin (budget.ts): approved, it runs
 * once; stopped, the run ends `cancelled` (reason budget, its end returned); no decision within the
 * agent's time, a timeout. Without a budget reached, the commands are those of a plain call.
 */
async function callWithinBudget(
  state: AgentRunState,
  left: number,
): Promise<ModelCallResult | Failed | AgentRunResult> {
  const number = ++state.number;
  let reply = await callModel(state, left, number);
  while (!("reason" in reply) && reply.budget) {
    const outcome = await awaitBudgetDecision(state, number, reply.budget);
    if (outcome === "stopped") {
      return endAgentRun(state, "cancelled", "budget", null, "An admin stopped the agent at its budget");
    }
    const stillLeft = timeLeft(state);
    if (outcome === "timeout" || stillLeft <= 0) {
      const error = `The agent ran out of its ${state.input.limits.timeout_ms} ms waiting for a decision on its budget`;
      return { reason: "timeout", error };
    }
    reply = await callModel(state, stillLeft, number, outcome.approved);
  }
  return reply;
}

/** The limit (model calls, tokens, time) the run has reached before its next model call. */
function limitReached(state: AgentRunState, left: number): Failed | undefined {
  const { limits } = state.input;
  if (state.modelCalls >= limits.max_steps) {
    return { reason: "max_steps", error: `The agent made ${state.modelCalls} model calls, its limit` };
  }
  if (state.usage.total_tokens >= limits.max_tokens) {
    return {
      reason: "max_tokens",
      error: `The agent used ${state.usage.total_tokens} tokens, its limit is ${limits.max_tokens}`,
    };
  }
  if (left <= 0) return { reason: "timeout", error: `The agent ran out of its ${limits.timeout_ms} ms` };
  return undefined;
}

/** The model's reply, or why the call failed (the provider's error, or the agent's time out). */
async function callModel(
  state: AgentRunState,
  left: number,
  number: number,
  budgetPass?: string,
): Promise<ModelCallResult | Failed> {
  const { input } = state;
  try {
    return await modelActivities(left).agentModelCall({
      agentRunId: input.agentRunId,
      workspaceId: input.workspaceId,
      number,
      provider: input.provider,
      model: input.model,
      system: input.system,
      messages: state.messages,
      tools: input.tools,
      maxTokens: Math.max(1, Math.min(input.maxTokensPerCall, input.limits.max_tokens - state.usage.total_tokens)),
      timeoutMs: left,
      ...(input.credentialId ? { credentialId: input.credentialId } : {}),
      ...(input.fallbacks?.length ? { fallbacks: input.fallbacks } : {}),
      ...(state.mcpTools.length > 0 ? { mcpTools: state.mcpTools } : {}),
      ...(budgetPass ? { budgetPass } : {}),
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    const cause = error instanceof ActivityFailure ? error.cause : error;
    const message = cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
    const timedOut = Date.now() >= state.deadline;
    return { reason: timedOut ? "timeout" : "provider_error", error: message };
  }
}
