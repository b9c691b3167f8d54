// One call to a language model, in either protocol: OpenAI-compatible chat completions (OpenAI,
// Azure-style gateways, Ollama, vLLM, OpenRouter through a base URL) or Anthropic Messages. Both
// through the providers' official SDKs, with their own retries off: Temporal retries the
// activity, so every retry is visible in history and survives a restart.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { Config } from "../../lib/config.js";

import type { AiProvider } from "./providers.js";

export { AI_PROVIDERS, type AiProvider } from "./providers.js";

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments exactly as the model wrote them (JSON text, possibly malformed). */
  arguments: string;
}

export type ChatMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; toolCalls?: ToolCall[] }
  | { role: "tool"; toolCallId: string; content: string };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  provider: AiProvider;
  model: string;
  apiKey: string;
  system?: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  temperature?: number;
  maxTokens: number;
  /** Ask for a single JSON object (OpenAI's json_object mode; an instruction for Anthropic). */
  json?: boolean;
  signal?: AbortSignal;
  /**
   * Streams the answer: called with each piece of text as the model writes it. The response is
   * the same as without (the SDK assembles the streamed answer); only watchers see the pieces.
   */
  onText?: (delta: string) => void;
}

export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
}

export interface ChatResponse {
  text: string;
  toolCalls: ToolCall[];
  model: string;
  usage: TokenUsage;
  stopReason: string;
}

/** A provider's refusal or failure; `retryable` for rate limits, timeouts, 5xx and lost connections. */
export class ProviderError extends Error {
  override name = "ProviderError";
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
  }
}

export type AiConfigKey =
  "OPENAI_API_KEY" | "OPENAI_BASE_URL" | "ANTHROPIC_API_KEY" | "ANTHROPIC_BASE_URL" | "AI_REQUEST_TIMEOUT";

const JSON_INSTRUCTION = "Answer with one JSON object and nothing else: no prose, no code fences.";

function providerError(provider: AiProvider, error: unknown): Error {
  if (error instanceof ProviderError) return error;
  const name = provider === "openai" ? "The OpenAI-compatible provider" : "Anthropic";
  if (error instanceof OpenAI.APIConnectionError || error instanceof Anthropic.APIConnectionError) {
    return new ProviderError(`${name} could not be reached: ${error.message}`, true);
  }
  if (error instanceof OpenAI.APIError || error instanceof Anthropic.APIError) {
    const status = error.status;
    const retryable = status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
    // The SDK's message already carries the provider's own text ("401 Incorrect API key ...").
    return new ProviderError(`${name} answered ${error.message}`, retryable, status);
  }
  return error instanceof Error ? error : new Error(String(error));
}

async function openAiChat(client: OpenAI, request: ChatRequest): Promise<ChatResponse> {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [];
  if (request.system) messages.push({ role: "system", content: request.system });
  for (const message of request.messages) {
    if (message.role === "tool") {
      messages.push({ role: "tool", tool_call_id: message.toolCallId, content: message.content });
    } else if (message.role === "assistant") {
      messages.push({
        role: "assistant",
        content: message.content || null,
        ...(message.toolCalls?.length
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: "function" as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      });
    } else {
      messages.push({ role: "user", content: message.content });
    }
  }
  const body = {
    model: request.model,
    messages,
    max_tokens: request.maxTokens,
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.json ? { response_format: { type: "json_object" as const } } : {}),
    ...(request.tools?.length
      ? {
          tools: request.tools.map((tool) => ({
            type: "function" as const,
            function: { name: tool.name, description: tool.description, parameters: tool.parameters },
          })),
        }
      : {}),
  };
  const { onText } = request;
  const completion = onText
    ? await client.chat.completions
        .stream({ ...body, stream_options: { include_usage: true } }, { signal: request.signal })
        .on("content", (delta) => onText(delta))
        .finalChatCompletion()
    : await client.chat.completions.create(body, { signal: request.signal });
  const choice = completion.choices[0];
  if (!choice) throw new ProviderError("The OpenAI-compatible provider answered without a choice", true);
  const input = completion.usage?.prompt_tokens ?? 0;
  const output = completion.usage?.completion_tokens ?? 0;
  return {
    text: choice.message.content ?? "",
    toolCalls: (choice.message.tool_calls ?? []).flatMap((call) =>
      call.type === "function" ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
    ),
    model: completion.model,
    usage: {
      input_tokens: input,
      output_tokens: output,
      total_tokens: completion.usage?.total_tokens ?? input + output,
    },
    stopReason: choice.finish_reason ?? "unknown",
  };
}

async function anthropicChat(client: Anthropic, request: ChatRequest): Promise<ChatResponse> {
  const messages: Anthropic.MessageParam[] = [];
  for (const message of request.messages) {
    if (message.role === "tool") {
      const block = { type: "tool_result" as const, tool_use_id: message.toolCallId, content: message.content };
      // Results of one turn's tool calls travel together in one user message.
      const last = messages.at(-1);
      if (last?.role === "user" && Array.isArray(last.content) && last.content.every((b) => b.type === "tool_result")) {
        last.content.push(block);
      } else {
        messages.push({ role: "user", content: [block] });
      }
    } else if (message.role === "assistant") {
      const content: Anthropic.ContentBlockParam[] = [];
      if (message.content) content.push({ type: "text", text: message.content });
      for (const call of message.toolCalls ?? []) {
        let input: unknown = {};
        try {
          input = JSON.parse(call.arguments);
        } catch {
          // Malformed arguments were answered with a tool error; the history keeps an empty object.
        }
        content.push({ type: "tool_use", id: call.id, name: call.name, input });
      }
      messages.push({ role: "assistant", content });
    } else {
      messages.push({ role: "user", content: message.content });
    }
  }
  const system = [request.system, request.json ? JSON_INSTRUCTION : undefined].filter(Boolean).join("\n\n");
  const body = {
    model: request.model,
    max_tokens: request.maxTokens,
    messages,
    ...(system ? { system } : {}),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.tools?.length
      ? {
          tools: request.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            input_schema: tool.parameters as Anthropic.Tool.InputSchema,
          })),
        }
      : {}),
  };
  const { onText } = request;
  const answer = onText
    ? await client.messages
        .stream(body, { signal: request.signal })
        .on("text", (delta) => onText(delta))
        .finalMessage()
    : await client.messages.create(body, { signal: request.signal });
  const input = answer.usage.input_tokens;
  const output = answer.usage.output_tokens;
  return {
    text: answer.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join(""),
    toolCalls: answer.content.flatMap((block) =>
      block.type === "tool_use" ? [{ id: block.id, name: block.name, arguments: JSON.stringify(block.input) }] : [],
    ),
    model: answer.model,
    usage: { input_tokens: input, output_tokens: output, total_tokens: input + output },
    stopReason: answer.stop_reason ?? "unknown",
  };
}

/**
 * The language models of the server configuration. Base URLs come from the operator's
 * configuration only (a local Ollama or vLLM is a loopback address, which the egress guard
 * would refuse): users choose the provider and model, never the address.
 */
export function createLanguageModels(config: Pick<Config, AiConfigKey>) {
  const timeout = config.AI_REQUEST_TIMEOUT;
  return {
    async chat(request: ChatRequest): Promise<ChatResponse> {
      try {
        if (request.provider === "openai") {
          const client = new OpenAI({
            apiKey: request.apiKey,
            baseURL: config.OPENAI_BASE_URL,
            maxRetries: 0,
            timeout,
          });
          return await openAiChat(client, request);
        }
        const client = new Anthropic({
          apiKey: request.apiKey,
          baseURL: config.ANTHROPIC_BASE_URL,
          maxRetries: 0,
          timeout,
        });
        return await anthropicChat(client, request);
      } catch (error) {
        throw providerError(request.provider, error);
      }
    },
  };
}

export type LanguageModels = ReturnType<typeof createLanguageModels>;
