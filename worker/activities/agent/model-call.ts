// One model call of an agent run, with the conversation so far; retried by Temporal on 429, 5xx
// and lost connections, not on errors another attempt would meet too.
import { ApplicationFailure, Context } from "@temporalio/activity";
import { mcpToolSpecs, toolSpecs } from "../../../core/agents/tools.js";
import { ProviderError } from "../../../core/ai/language-models.js";
import { callFallbacks, fallsBack, type TriedModel } from "../../../core/ai/model-fallbacks.js";
import { missingApiKeyMessage } from "../../../core/ai/providers.js";
import type { ModelCallInput, ModelCallResult } from "../../../core/contracts/agent-run.js";
import { NodeError } from "../../../core/nodes/node-error.js";
import { budgetHoldOf } from "../../../core/usage/budgets.js";
import { agentCallId, pricedUsage } from "../../../core/usage/usage-records.js";
import { countUsage } from "../usage/usage-metrics.js";
import type { AgentActivityContext } from "./agent-context.js";
import { recordAgentStep } from "./agent-steps.js";
import { heartbeating } from "./heartbeating.js";
import { createAgentTextPublisher } from "../../../lib/agent-text.js";

type ModelCallDeps = Pick<AgentActivityContext, "prisma" | "clock" | "seal" | "models" | "apiKeyFor" | "metrics">;

export async function agentModelCall(deps: ModelCallDeps, input: ModelCallInput): Promise<ModelCallResult> {
  const startedAt = deps.clock.now();
  const under = await countedUnder(deps, input.agentRunId);
  const held = await heldByBudget(deps, input, under.flowId, startedAt);
  if (held) return held;
  const apiKey = await modelApiKey(deps, input);
  const step = {
    agentRunId: input.agentRunId,
    number: input.number,
    kind: "model" as const,
    input: { last: input.messages.at(-1) },
    startedAt,
  };
  const { answer, answered, fallback } = await answerCall(deps, input, apiKey, step, under.runId);
  const usage = await pricedUsage(deps.prisma, {
    id: agentCallId(input.agentRunId, input.number),
    workspaceId: input.workspaceId,
    ...under,
    agentRunId: input.agentRunId,
    agentStep: input.number,
    provider: answered.provider,
    model: answered.model,
    usage: answer.usage,
    at: deps.clock.now(),
  });
  const counted = await recordAgentStep(deps, {
    ...step,
    name: answer.model,
    output: { text: answer.text, tool_calls: answer.toolCalls, ...(fallback ? { fallback } : {}) },
    inputTokens: answer.usage.input_tokens,
    outputTokens: answer.usage.output_tokens,
    usage,
  });
  if (counted) countUsage(deps.metrics, usage);
  return { text: answer.text, toolCalls: answer.toolCalls, usage: answer.usage };
}

type Step = Omit<Parameters<typeof recordAgentStep>[1], "name" | "output">;

/**
 * The model's answer: the primary's, or on its last attempt a fallback's. The text streams to the
 * run's watchers as it comes (lib/agent-text.ts); a refusal no retry would change is recorded as
 * the step's error and fails the call for good.
 */
async function answerCall(
  deps: ModelCallDeps,
  input: ModelCallInput,
  apiKey: string,
  step: Step,
  runId: string | null | undefined,
) {
  const text = createAgentTextPublisher(deps.prisma, {
    agentRunId: input.agentRunId,
    ...(runId ? { runId } : {}),
    number: input.number,
  });
  const chat = (provider: ModelCallInput["provider"], model: string, key: string) =>
    heartbeating(() =>
      deps.models.chat({
        provider,
        model,
        apiKey: key,
        system: input.system,
        messages: input.messages,
        tools: [...toolSpecs(input.tools), ...mcpToolSpecs(input.mcpTools)],
        maxTokens: input.maxTokens,
        signal: Context.current().cancellationSignal,
        onText: text.push,
      }),
    );
  try {
    try {
      const answer = await chat(input.provider, input.model, apiKey);
      return { answer, answered: { provider: input.provider, model: input.model }, fallback: undefined };
    } catch (error) {
      // The primary's retries are spent on a failure another model may not meet: the next one answers.
      if (!(fallsBack(error) && onLastAttempt() && input.fallbacks?.length)) throw error;
      const result = await callFallbacks(
        input,
        error,
        input.fallbacks,
        async (next) => {
          const key = await deps.apiKeyFor(input.workspaceId, next.provider, next.credential_id);
          if (!key) throw new ProviderError(missingApiKeyMessage(next.provider), false);
          return chat(next.provider, next.model, key);
        },
        Context.current().cancellationSignal,
      );
      const answered = { provider: result.answered.provider, model: result.answered.model };
      const fallback: { provider: string; model: string; tried: TriedModel[] } = { ...answered, tried: result.tried };
      return { answer: result.answer, answered, fallback };
    }
  } catch (error) {
    if (error instanceof ProviderError && !error.retryable) {
      await recordAgentStep(deps, { ...step, name: input.model, output: null, error: error.message });
      throw ApplicationFailure.nonRetryable(error.message, "ProviderError");
    }
    throw error;
  } finally {
    await text.close();
  }
}

/** Whether this attempt is the model call's last under its retry policy (a failure ends it). */
function onLastAttempt(): boolean {
  const { attempt, retryPolicy } = Context.current().info;
  const max = retryPolicy?.maximumAttempts;
  return max !== undefined && max > 0 && attempt >= max;
}

/**
 * The answer of a call a reached budget holds back (the run then waits for an admin), or undefined
 * when no budget of its workspace or flow is reached, or an admin approved this call (budgetPass).
 */
async function heldByBudget(
  deps: Pick<ModelCallDeps, "prisma">,
  input: ModelCallInput,
  flowId: string | null | undefined,
  at: Date,
): Promise<ModelCallResult | undefined> {
  const hold = await budgetHoldOf(
    deps.prisma,
    { workspaceId: input.workspaceId, flowId, budgetPass: input.budgetPass },
    at,
  );
  if (!hold) return undefined;
  return { text: "", toolCalls: [], usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 }, budget: hold };
}

/** The flow, run and node an agent run's cost is counted under: those of the ai.agent node that started it. */
async function countedUnder({ prisma }: Pick<ModelCallDeps, "prisma">, agentRunId: string) {
  const run = await prisma.agentRun.findUnique({
    where: { id: agentRunId },
    select: { flowId: true, parentRunId: true, parentNodeId: true },
  });
  return { flowId: run?.flowId, runId: run?.parentRunId, nodeId: run?.parentNodeId };
}

/** The provider's key for the call; a missing one, or a credential that cannot give it, is not retried. */
async function modelApiKey(deps: ModelCallDeps, input: ModelCallInput): Promise<string> {
  const apiKey = await deps.apiKeyFor(input.workspaceId, input.provider, input.credentialId).catch((error: unknown) => {
    // The credential named is gone or holds another provider's key: another attempt meets the same.
    if (error instanceof NodeError && !error.retryable)
      throw ApplicationFailure.nonRetryable(error.message, "CredentialError");
    throw error;
  });
  if (!apiKey) throw ApplicationFailure.nonRetryable(missingApiKeyMessage(input.provider), "NoApiKey");
  return apiKey;
}
