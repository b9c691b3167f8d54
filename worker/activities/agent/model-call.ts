// One model call of an agent run, with the conversation so far; retried by Temporal on 429, 5xx
// and lost connections, not on errors another attempt would meet too.
import { ApplicationFailure, Context } from "@temporalio/activity";
import { toolSpecs } from "../../../core/agents/tools.js";
import { ProviderError } from "../../../core/ai/language-models.js";
import { missingApiKeyMessage } from "../../../core/ai/providers.js";
import type { ModelCallInput, ModelCallResult } from "../../../core/contracts/agent-run.js";
import { NodeError } from "../../../core/nodes/node-error.js";
import type { AgentActivityContext } from "./agent-context.js";
import { recordAgentStep } from "./agent-steps.js";
import { heartbeating } from "./heartbeating.js";

type ModelCallDeps = Pick<AgentActivityContext, "prisma" | "clock" | "seal" | "models" | "apiKeyFor">;

export async function agentModelCall(deps: ModelCallDeps, input: ModelCallInput): Promise<ModelCallResult> {
  const startedAt = deps.clock.now();
  const apiKey = await modelApiKey(deps, input);
  const step = {
    agentRunId: input.agentRunId,
    number: input.number,
    kind: "model" as const,
    input: { last: input.messages.at(-1) },
    startedAt,
  };
  let answer;
  try {
    answer = await heartbeating(() =>
      deps.models.chat({
        provider: input.provider,
        model: input.model,
        apiKey,
        system: input.system,
        messages: input.messages,
        tools: toolSpecs(input.tools),
        maxTokens: input.maxTokens,
        signal: Context.current().cancellationSignal,
      }),
    );
  } catch (error) {
    if (error instanceof ProviderError && !error.retryable) {
      await recordAgentStep(deps, { ...step, name: input.model, output: null, error: error.message });
      throw ApplicationFailure.nonRetryable(error.message, "ProviderError");
    }
    throw error;
  }
  await recordAgentStep(deps, {
    ...step,
    name: answer.model,
    output: { text: answer.text, tool_calls: answer.toolCalls },
    inputTokens: answer.usage.input_tokens,
    outputTokens: answer.usage.output_tokens,
  });
  return { text: answer.text, toolCalls: answer.toolCalls, usage: answer.usage };
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
