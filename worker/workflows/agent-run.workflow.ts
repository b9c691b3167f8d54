// An agent run: a loop of model calls and tool calls, each an activity (flow.run a child
// workflow), so a worker lost mid-loop resumes where it was and finished calls are not repeated.
// The conversation lives in the workflow; limits end the loop with a stated reason.
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  executeChild,
  isCancellation,
  proxyActivities,
} from "@temporalio/workflow";
import type { AgentActivities } from "../activities/agent.activities.js";
import type { ChatMessage, TokenUsage } from "../../core/ai/language-models.js";
import type { AgentEndReason, AgentRunInput, AgentRunResult, ToolCallInput } from "../../core/contracts/agent-run.js";
import { operatorMemo } from "../../core/contracts/operator-text.js";
import { runDisplay, runSearchAttributes } from "../../core/contracts/run-flow.js";
import { childRunOutcome } from "./child-run.js";
import { runFlow } from "./run-flow.workflow.js";

// Tool calls heartbeat: a lost worker is noticed within 15 s and the call retried elsewhere.
const bookkeeping = proxyActivities<AgentActivities>({
  startToCloseTimeout: "2 minutes",
  heartbeatTimeout: "15 seconds",
  retry: { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "30 seconds" },
});

export async function agentRun(input: AgentRunInput): Promise<AgentRunResult> {
  const deadline = Date.now() + input.limits.timeout_ms;
  const usage: TokenUsage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  const messages: ChatMessage[] = [{ role: "user", content: input.instructions }];
  let number = 0;
  let modelCalls = 0;

  const end = async (
    status: AgentRunResult["status"],
    reason: AgentEndReason,
    answer: string | null,
    error?: string,
  ): Promise<AgentRunResult> => {
    const result: AgentRunResult = {
      agentRunId: input.agentRunId,
      status,
      reason,
      answer,
      ...(error ? { error } : {}),
      steps: modelCalls,
      usage,
    };
    // Recorded even when the run is being cancelled.
    await CancellationScope.nonCancellable(() =>
      bookkeeping.finishAgentRun({ ...result, workspaceId: input.workspaceId, agentId: input.agentId }),
    );
    return result;
  };

  const toolInput = (call: ToolCallInput["call"]): ToolCallInput => ({
    agentRunId: input.agentRunId,
    workspaceId: input.workspaceId,
    agentId: input.agentId,
    number: ++number,
    call,
    allowed: input.tools,
  });

  try {
    for (;;) {
      if (modelCalls >= input.limits.max_steps) {
        return await end("failed", "max_steps", null, `The agent made ${modelCalls} model calls, its limit`);
      }
      if (usage.total_tokens >= input.limits.max_tokens) {
        return await end(
          "failed",
          "max_tokens",
          null,
          `The agent used ${usage.total_tokens} tokens, its limit is ${input.limits.max_tokens}`,
        );
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        return await end("failed", "timeout", null, `The agent ran out of its ${input.limits.timeout_ms} ms`);
      }
      const model = proxyActivities<AgentActivities>({
        startToCloseTimeout: Math.max(1000, left),
        heartbeatTimeout: "15 seconds",
        retry: { initialInterval: "2 seconds", backoffCoefficient: 2, maximumInterval: "1 minute", maximumAttempts: 6 },
      });
      let reply;
      try {
        reply = await model.agentModelCall({
          agentRunId: input.agentRunId,
          workspaceId: input.workspaceId,
          number: ++number,
          provider: input.provider,
          model: input.model,
          system: input.system,
          messages,
          tools: input.tools,
          maxTokens: Math.max(1, Math.min(input.maxTokensPerCall, input.limits.max_tokens - usage.total_tokens)),
          timeoutMs: left,
          ...(input.credentialId ? { credentialId: input.credentialId } : {}),
        });
      } catch (error) {
        if (isCancellation(error)) throw error;
        const cause = error instanceof ActivityFailure ? error.cause : error;
        const message = cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
        const timedOut = Date.now() >= deadline;
        return await end("failed", timedOut ? "timeout" : "provider_error", null, message);
      }
      modelCalls++;
      usage.input_tokens += reply.usage.input_tokens;
      usage.output_tokens += reply.usage.output_tokens;
      usage.total_tokens += reply.usage.total_tokens;
      messages.push({ role: "assistant", content: reply.text, toolCalls: reply.toolCalls });
      if (reply.toolCalls.length === 0) return await end("success", "answered", reply.text);

      for (const call of reply.toolCalls) {
        const args = toolInput(call);
        let result;
        if (call.name === "flow_run" && input.tools.includes("flow.run")) {
          const started = await bookkeeping.agentStartFlowRun(args);
          if ("result" in started) {
            result = started.result;
          } else {
            const { run } = started;
            const outcome = await childRunOutcome(
              run.runId,
              executeChild(runFlow, {
                workflowId: run.runId,
                args: [run],
                typedSearchAttributes: runSearchAttributes(run.workspaceId, run.flowId),
                memo: operatorMemo({ flow_name: run.flowName, agent_run_id: input.agentRunId }),
                ...runDisplay({ ...run, trigger: "agent", parent: `agent run ${input.agentRunId}` }),
              }),
            );
            result = await bookkeeping.agentFinishFlowRun({
              ...args,
              runId: run.runId,
              status: outcome.status,
              output: outcome.output,
              error: outcome.error,
              startedAt: run.startedAt,
            });
          }
        } else {
          result = await bookkeeping.agentToolCall(args);
        }
        messages.push({ role: "tool", toolCallId: call.id, content: result.content });
      }
    }
  } catch (error) {
    if (isCancellation(error)) {
      await end("cancelled", "cancelled", null, "The agent run was cancelled");
      throw error;
    }
    throw error;
  }
}
