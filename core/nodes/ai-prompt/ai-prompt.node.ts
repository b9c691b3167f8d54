// ai.prompt: one call to a language model. The prompt and system prompt are templates over
// earlier outputs ({{ input.x }}); the answer is text, or parsed JSON in JSON mode, with the
// model's name and token usage.
import { z } from "zod";
import { AI_PROVIDERS, ProviderError } from "../../ai/language-models.js";
import { missingApiKeyMessage } from "../../ai/providers.js";
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
    "Makes one call to a language model (OpenAI-compatible chat completions or Anthropic Messages) and outputs {text, json?, model, usage, finish_reason}. The API key is the ai_provider credential it names, else the workspace's or the server's; rate limits and provider errors 5xx are retried with backoff, other 4xx fail at once with the provider's message.",
  kind: "activity",
  reachesOutside: true,
  config: z.object({
    provider: z.enum(AI_PROVIDERS).default("openai").meta({ label: "Provider" }),
    credential_id: credentialField("API key (default: the workspace's, else the server's)", ["ai_provider"]),
    model: z.string().min(1).max(200).meta({ label: "Model", placeholder: "gpt-4o-mini" }),
    system: z.string().max(100_000).optional().meta({ label: "System prompt" }),
    prompt: z.string().min(1).max(200_000).meta({ label: "Prompt", placeholder: "Summarise: {{ input.body }}" }),
    temperature: z.number().min(0).max(2).optional().meta({ label: "Temperature" }),
    max_tokens: z.number().int().min(1).max(200_000).default(1024).meta({ label: "Max output tokens" }),
    json: z.boolean().default(false).meta({ label: "Answer as JSON" }),
  }),
  async execute(_input, config, env) {
    if (!env.ai) throw new NodeError("This runtime offers no language models", { retryable: false });
    if (!env.apiKey) throw new NodeError(missingApiKeyMessage(config.provider), { retryable: false });
    let answer;
    try {
      answer = await env.ai.chat({
        provider: config.provider,
        model: config.model,
        apiKey: env.apiKey,
        system: config.system,
        messages: [{ role: "user", content: config.prompt }],
        temperature: config.temperature,
        maxTokens: config.max_tokens,
        json: config.json,
        signal: env.signal,
      });
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
