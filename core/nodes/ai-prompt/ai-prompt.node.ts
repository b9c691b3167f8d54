// ai.prompt: one call to a language model. The prompt and system prompt are templates over
// earlier outputs ({{ input.x }}); the answer is text, or parsed JSON in JSON mode, with the
// model's name and token usage.
import { z } from "zod";
import { AI_PROVIDERS, ProviderError } from "../../ai/language-models.js";
import { callFallbacks, fallsBack, type TriedModel } from "../../ai/model-fallbacks.js";
import { missingApiKeyMessage } from "../../ai/providers.js";
import { modelFallbacksSchema } from "../../contracts/model-fallbacks.js";
import { defineNode } from "../define-node.js";
import { NodeError } from "../node-error.js";
import { credentialField } from "../shared/credential-field.js";

/** The JSON object of a JSON-mode answer; models sometimes wrap it in a code fence. */
export function parseJsonAnswer(text: string): unknown {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(text);
  return JSON.parse(fenced ? fenced[1]! : text);
}

export const aiPromptNode = defineNode({
  type: "ai.prompt",
  version: 1,
  name: "AI prompt",
  category: "ai",
  description:
    "Makes one call to a language model (OpenAI-compatible chat completions or Anthropic Messages) and outputs {text, json?, model, usage, finish_reason}. The API key is the ai_provider credential it names, else the workspace's or the server's; rate limits and provider errors 5xx are retried with backoff, other 4xx fail at once with the provider's message. When the last attempt fails on a rate limit, a 5xx or a timeout, the `fallbacks` (at most 3 {provider, model, credential_id?}) are called in order, once each; the output's `fallback` then says which answered and which were tried. While a token or cost budget of the workspace or the flow is reached, the call is not made: the run waits for an admin to approve it once or stop the run.",
  kind: "activity",
  reachesOutside: true,
  budgeted: true,
  config: z.object({
    provider: z.enum(AI_PROVIDERS).default("openai").meta({ label: "Provider" }),
    credential_id: credentialField("API key (default: the workspace's, else the server's)", ["ai_provider"]),
    model: z.string().min(1).max(200).meta({ label: "Model", placeholder: "gpt-4o-mini" }),
    system: z.string().max(100_000).optional().meta({ label: "System prompt" }),
    prompt: z.string().min(1).max(200_000).meta({ label: "Prompt", placeholder: "Summarise: {{ input.body }}" }),
    temperature: z.number().min(0).max(2).optional().meta({ label: "Temperature" }),
    max_tokens: z.number().int().min(1).max(200_000).default(1024).meta({ label: "Max output tokens" }),
    json: z.boolean().default(false).meta({ label: "Answer as JSON" }),
    fallbacks: modelFallbacksSchema.default([]).meta({ label: "Fallback models ({provider, model, credential_id?})" }),
  }),
  async execute(_input, config, env) {
    if (!env.ai) throw new NodeError("This runtime offers no language models", { retryable: false });
    if (!env.apiKey) throw new NodeError(missingApiKeyMessage(config.provider), { retryable: false });
    const call = (provider: typeof config.provider, model: string, apiKey: string) =>
      env.ai!.chat({
        provider,
        model,
        apiKey,
        system: config.system,
        messages: [{ role: "user", content: config.prompt }],
        temperature: config.temperature,
        maxTokens: config.max_tokens,
        json: config.json,
        signal: env.signal,
      });
    let answer;
    let fallback: { provider: string; model: string; tried: TriedModel[] } | undefined;
    try {
      try {
        answer = await call(config.provider, config.model, env.apiKey);
      } catch (error) {
        // The primary's retries are spent on a failure another model may not meet: the next one answers.
        if (!(fallsBack(error) && env.lastAttempt && env.aiKey && config.fallbacks.length > 0)) throw error;
        const aiKey = env.aiKey;
        const result = await callFallbacks(
          config,
          error,
          config.fallbacks,
          async (next) => {
            const apiKey = await aiKey(next.provider, next.credential_id);
            if (!apiKey) throw new ProviderError(missingApiKeyMessage(next.provider), false);
            return call(next.provider, next.model, apiKey);
          },
          env.signal,
        );
        answer = result.answer;
        fallback = { provider: result.answered.provider, model: result.answered.model, tried: result.tried };
      }
    } catch (error) {
      if (error instanceof ProviderError) throw new NodeError(error.message, { retryable: error.retryable });
      throw error;
    }
    const output: Record<string, unknown> = {
      text: answer.text,
      model: answer.model,
      usage: answer.usage,
      finish_reason: answer.stopReason,
    };
    if (fallback) output.fallback = fallback;
    if (config.json) {
      try {
        output.json = parseJsonAnswer(answer.text);
      } catch {
        throw new NodeError(`The model did not answer with JSON: ${answer.text.slice(0, 200)}`, { retryable: false });
      }
    }
    return output;
  },
});
