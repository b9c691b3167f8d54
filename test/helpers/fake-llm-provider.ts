// A language-model provider on loopback that speaks both real protocols: OpenAI chat
// completions (POST /v1/chat/completions) and Anthropic Messages (POST /v1/messages), each as one
// JSON answer or, when the request asks for `stream`, as the provider's server-sent events. Tests
// script its answers in order and read back every request it received.
import type { ServerResponse } from "node:http";
import { startLoopbackServer, type LoopbackServer } from "./loopback-server.js";

export type Protocol = "openai" | "anthropic";

export interface ReceivedCall {
  protocol: Protocol;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/** A scripted answer: an HTTP status with a JSON body. */
export interface ScriptedAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Sent only once this settles: a test holds a run mid-loop to watch its earlier steps. */
  after?: Promise<unknown>;
  /** Streamed: the first half of the events is sent, the rest once this settles. */
  midway?: Promise<unknown>;
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}_${++counter}`;

/** An OpenAI chat completion answer. */
export function openAiAnswer(
  answer: { text?: string; toolCalls?: Array<{ name: string; arguments: string }>; model?: string },
  usage = { prompt_tokens: 11, completion_tokens: 7 },
): ScriptedAnswer {
  return {
    status: 200,
    body: {
      id: nextId("chatcmpl"),
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: answer.model ?? "gpt-test",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: answer.text ?? null,
            ...(answer.toolCalls
              ? {
                  tool_calls: answer.toolCalls.map((call) => ({
                    id: nextId("call"),
                    type: "function",
                    function: { name: call.name, arguments: call.arguments },
                  })),
                }
              : {}),
          },
          finish_reason: answer.toolCalls ? "tool_calls" : "stop",
        },
      ],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    },
  };
}

/** An Anthropic Messages answer. */
export function anthropicAnswer(
  answer: { text?: string; toolUses?: Array<{ name: string; input: unknown }>; model?: string },
  usage = { input_tokens: 13, output_tokens: 5 },
): ScriptedAnswer {
  return {
    status: 200,
    body: {
      id: nextId("msg"),
      type: "message",
      role: "assistant",
      model: answer.model ?? "claude-test",
      content: [
        ...(answer.text === undefined ? [] : [{ type: "text", text: answer.text }]),
        ...(answer.toolUses ?? []).map((use) => ({
          type: "tool_use",
          id: nextId("toolu"),
          name: use.name,
          input: use.input,
        })),
      ],
      stop_reason: answer.toolUses?.length ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage,
    },
  };
}

/** The providers' own error shapes. */
export function providerFailure(protocol: Protocol, status: number, message: string): ScriptedAnswer {
  const type = status === 429 ? "rate_limit_error" : status === 401 ? "authentication_error" : "api_error";
  return protocol === "openai"
    ? { status, body: { error: { message, type, code: null, param: null } } }
    : { status, body: { type: "error", error: { type, message } } };
}

/** Text in a few pieces, as a model writes it (words with their spaces). */
const pieces = (text: string) => text.match(/\S+\s*|\s+/g) ?? [];

type StreamEvent = { event?: string; data: unknown };
interface OpenAiBody {
  id: string;
  created: number;
  model: string;
  choices: Array<{
    message: { content: string | null; tool_calls?: Array<{ id: string; function: unknown }> };
    finish_reason: string;
  }>;
  usage: unknown;
}
type AnthropicBlock = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: unknown };
interface AnthropicBody {
  content: AnthropicBlock[];
  usage: { input_tokens: number; output_tokens: number };
  stop_reason: string;
}

/** The server-sent events of an answer, in the provider's own streaming format. */
function streamEvents(protocol: Protocol, answer: unknown): StreamEvent[] {
  return protocol === "openai"
    ? openAiStreamEvents(answer as OpenAiBody)
    : anthropicStreamEvents(answer as AnthropicBody);
}

/** Chat completion chunks: the role, the text in pieces, the tool calls, the finish, the usage, [DONE]. */
function openAiStreamEvents(body: OpenAiBody): StreamEvent[] {
  const choice = body.choices[0]!;
  const chunk = (delta: object, finish: string | null = null) => ({
    data: {
      id: body.id,
      object: "chat.completion.chunk",
      created: body.created,
      model: body.model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    },
  });
  return [
    chunk({ role: "assistant", content: "" }),
    ...pieces(choice.message.content ?? "").map((content) => chunk({ content })),
    ...(choice.message.tool_calls ?? []).map((call, index) =>
      chunk({ tool_calls: [{ index, id: call.id, type: "function", function: call.function }] }),
    ),
    chunk({}, choice.finish_reason),
    {
      data: {
        id: body.id,
        object: "chat.completion.chunk",
        created: body.created,
        model: body.model,
        choices: [],
        usage: body.usage,
      },
    },
    { data: "[DONE]" },
  ];
}

/** Messages events: message_start, each block's start, deltas and stop, message_delta, message_stop. */
function anthropicStreamEvents(answer: AnthropicBody): StreamEvent[] {
  const { content, usage, ...message } = answer;
  const blocks = content.flatMap((block, index): StreamEvent[] =>
    block.type === "text"
      ? [
          {
            event: "content_block_start",
            data: { type: "content_block_start", index, content_block: { type: "text", text: "" } },
          },
          ...pieces(block.text).map((text) => ({
            event: "content_block_delta",
            data: { type: "content_block_delta", index, delta: { type: "text_delta", text } },
          })),
          { event: "content_block_stop", data: { type: "content_block_stop", index } },
        ]
      : [
          {
            event: "content_block_start",
            data: {
              type: "content_block_start",
              index,
              content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
            },
          },
          {
            event: "content_block_delta",
            data: {
              type: "content_block_delta",
              index,
              delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
            },
          },
          { event: "content_block_stop", data: { type: "content_block_stop", index } },
        ],
  );
  return [
    {
      event: "message_start",
      data: {
        type: "message_start",
        message: {
          ...message,
          content: [],
          stop_reason: null,
          usage: { input_tokens: usage.input_tokens, output_tokens: 0 },
        },
      },
    },
    ...blocks,
    {
      event: "message_delta",
      data: {
        type: "message_delta",
        delta: { stop_reason: message.stop_reason, stop_sequence: null },
        usage: { output_tokens: usage.output_tokens },
      },
    },
    { event: "message_stop", data: { type: "message_stop" } },
  ];
}

/** Sends a scripted answer as a stream: half its events, then (after `midway`) the rest. */
async function streamAnswer(res: ServerResponse, protocol: Protocol, answer: ScriptedAnswer) {
  const events = streamEvents(protocol, answer.body);
  res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", ...answer.headers });
  const write = ({ event, data }: StreamEvent) =>
    res.write(`${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
  const half = Math.ceil(events.length / 2);
  events.slice(0, half).forEach(write);
  if (answer.midway) await answer.midway.catch(() => undefined);
  if (res.destroyed) return;
  events.slice(half).forEach(write);
  res.end();
}

export interface FakeProvider extends LoopbackServer {
  /** Queues answers for one protocol, served in order. */
  script(protocol: Protocol, ...answers: ScriptedAnswer[]): void;
  /** Every request received, oldest first. */
  calls: ReceivedCall[];
  reset(): void;
}

export async function startFakeProvider(): Promise<FakeProvider> {
  const queues: Record<Protocol, ScriptedAnswer[]> = { openai: [], anthropic: [] };
  const calls: ReceivedCall[] = [];
  const server = await startLoopbackServer((req, res) => {
    const protocol: Protocol | undefined =
      req.method === "POST" && req.url === "/v1/chat/completions"
        ? "openai"
        : req.method === "POST" && req.url === "/v1/messages"
          ? "anthropic"
          : undefined;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (!protocol) {
        res.writeHead(404, { "Content-Type": "application/json" }).end('{"error":{"message":"no such route"}}');
        return;
      }
      calls.push({ protocol, headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
      const answer =
        queues[protocol].shift() ?? providerFailure(protocol, 500, "the fake provider has no scripted answer left");
      const streamed = calls.at(-1)!.body.stream === true && answer.status === 200;
      const send = () => {
        if (res.destroyed) return;
        if (streamed) {
          void streamAnswer(res, protocol, answer);
          return;
        }
        res
          .writeHead(answer.status, { "Content-Type": "application/json", ...answer.headers })
          .end(JSON.stringify(answer.body));
      };
      if (answer.after) void answer.after.then(send, send);
      else send();
    });
  });
  return {
    ...server,
    calls,
    script(protocol, ...answers) {
      queues[protocol].push(...answers);
    },
    reset() {
      calls.length = 0;
      queues.openai.length = 0;
      queues.anthropic.length = 0;
    },
  };
}
