// A model's tool call as the agent's activities read it (the tool named and its checked
// arguments), and what goes back to the model.
import { toolNameOf, TOOL_ARGUMENTS, wireName, type ToolArguments } from "../../../core/agents/tools.js";
import type { AgentToolName } from "../../../core/contracts/agent-catalog.js";
import type { ToolCallInput, ToolCallResult } from "../../../core/contracts/agent-run.js";

/** What a tool answers the model at most; longer results are cut with a note. */
const MAX_TOOL_RESULT_CHARS = 20_000;

export type ParsedToolCall =
  | { name: AgentToolName; args: ToolArguments<AgentToolName>; error?: undefined }
  | { name?: AgentToolName; error: string };

/** The tool and its checked arguments, or the error the model gets back. */
export function parseToolCall(input: ToolCallInput): ParsedToolCall {
  const name = toolNameOf(input.call.name);
  if (!name || !input.allowed.includes(name)) {
    return {
      error: `unknown tool "${input.call.name}"; the tools are ${input.allowed.map(wireName).join(", ")}`,
    };
  }
  let raw: unknown;
  try {
    raw = input.call.arguments.trim() === "" ? {} : JSON.parse(input.call.arguments);
  } catch {
    return {
      name,
      error: `the arguments of ${input.call.name} are not valid JSON: ${input.call.arguments.slice(0, 200)}`,
    };
  }
  const parsed = TOOL_ARGUMENTS[name].safeParse(raw);
  if (!parsed.success) {
    return {
      name,
      error: `invalid arguments for ${input.call.name}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`).join("; ")}`,
    };
  }
  return { name, args: parsed.data };
}

/** A tool's result as the model reads it: JSON text, cut past MAX_TOOL_RESULT_CHARS. */
export const asContent = (value: unknown): string => {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
  return text.length <= MAX_TOOL_RESULT_CHARS
    ? text
    : `${text.slice(0, MAX_TOOL_RESULT_CHARS)}… [cut: ${text.length} characters in all]`;
};

export const toolError = (message: string): ToolCallResult => ({
  content: JSON.stringify({ error: message }),
  isError: true,
});

/** The arguments as an object, or why they are not one (the server checks them against its schema). */
export function argumentsOf(text: string): Record<string, unknown> | string {
  let parsed: unknown;
  try {
    parsed = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    return `not valid JSON: ${text.slice(0, 200)}`;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return "not a JSON object";
  return parsed as Record<string, unknown>;
}
