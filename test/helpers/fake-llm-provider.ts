// A language-model provider on loopback that speaks both real protocols: OpenAI chat
// completions (POST /v1/chat/completions) and Anthropic Messages (POST /v1/messages). Tests
// script its answers in order and read back every request it received.
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
      const send = () => {
        if (res.destroyed) return;
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
