// An agent run: a loop of model calls and tool calls, each an activity (flow.run a child
// workflow), so a worker lost mid-loop resumes where it was and finished calls are not repeated.
// The conversation lives in the workflow; limits end the loop with a stated reason. A call of a
// tool in approvalTools first waits for a member's decision (an update; no activity runs meanwhile).
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
} from "@temporalio/workflow";
import type { AgentActivities } from "../activities/agent.activities.js";
import type { ChatMessage, TokenUsage } from "../../core/ai/language-models.js";
import type { AgentToolName } from "../../core/agents/presets.js";
import type {
  AgentEndReason,
  AgentRunInput,
  AgentRunResult,
  ApprovalFinishInput,
  ToolCallInput,
  ToolCallResult,
} from "../../core/contracts/agent-run.js";
import { runChildFlow } from "./child-run.js";
import { decisionOf, handleWaitDecisions, type WaitState } from "./wait-decisions.js";

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

  /** Tool calls awaiting approval, by wait id: decided through decideWaitUpdate. */
  const waits = new Map<string, WaitState>();
  handleWaitDecisions(waits);

  /**
   * Waits for a member's decision on a call of a tool that needs approval: undefined when approved
   * (the tool runs), the result the model gets instead when rejected (or at once, for arguments
   * the tool refuses), or "timeout" when the agent's time ran out first.
   */
  const approval = async (
    call: ToolCallInput["call"],
    tool: AgentToolName,
  ): Promise<ToolCallResult | "timeout" | undefined> => {
    const left = deadline - Date.now();
    if (left <= 0) return "timeout";
    const asked = { ...toolInput(call), tool, timeoutMs: left };
    const start = await bookkeeping.agentStartApproval(asked);
    if ("result" in start) return start.result;
    const wait: WaitState = { start: { mode: "approval", deciders: start.deciders } };
    waits.set(start.waitId, wait);
    let decided: boolean;
    try {
      decided = await condition(() => wait.decision !== undefined, left);
    } catch (error) {
      // Cancelled: the run's end closes the wait's record.
      wait.closed = true;
      throw error;
    }
    const finish = (end: Pick<ApprovalFinishInput, "status" | "decision" | "comment" | "decidedBy" | "decidedAt">) =>
      CancellationScope.nonCancellable(() =>
        bookkeeping.agentFinishApproval({ ...asked, waitId: start.waitId, since: start.since, ...end }),
      );
    if (!decided) {
      wait.expired = true;
      await finish({ status: "expired" });
      return "timeout";
    }
    const decision = wait.decision!;
    const verdict = decisionOf(decision) === "approved" ? "approved" : "rejected";
    const decidedBy = decision.decidedBy && { id: decision.decidedBy.id, name: decision.decidedBy.name };
    await finish({
      status: "decided",
      decision: verdict,
      ...(decision.comment === undefined ? {} : { comment: decision.comment }),
      ...(decidedBy ? { decidedBy } : {}),
      decidedAt: decision.decidedAt,
    });
    wait.recorded = { waitId: start.waitId, decision: verdict, decidedAt: decision.decidedAt };
    if (verdict === "approved") return undefined;
    // The comment only: who decided stays in the step log, not in what goes to the provider.
    return { content: JSON.stringify({ rejected: true, comment: decision.comment ?? null }), isError: true };
  };

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
        // Wire names (http_call) as the model sends them (core/agents/tools.ts).
        const gated = input.approvalTools?.find((tool) => tool.replace(".", "_") === call.name);
        if (gated && input.tools.includes(gated)) {
          const instead = await approval(call, gated);
          if (instead === "timeout") {
            return await end(
              "failed",
              "timeout",
              null,
              `The agent ran out of its ${input.limits.timeout_ms} ms waiting for a decision on ${gated}`,
            );
          }
          if (instead) {
            messages.push({ role: "tool", toolCallId: call.id, content: instead.content });
            continue;
          }
        }
        const args = toolInput(call);
        let result;
        if (call.name === "flow_run" && input.tools.includes("flow.run")) {
          const started = await bookkeeping.agentStartFlowRun(args);
          if ("result" in started) {
            result = started.result;
          } else {
            const { run } = started;
            const outcome = await runChildFlow(run, {
              trigger: "agent",
              parent: `agent run ${input.agentRunId}`,
              memo: { agent_run_id: input.agentRunId },
            });
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
