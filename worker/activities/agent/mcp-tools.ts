// An agent's MCP tools: listed once per server at the agent's start, then each call an activity.
// Both are retried by Temporal (the tool calls' policy) while the server's failure is one another
// attempt may cure, up to MCP_ATTEMPTS; past that, or for a failure that would recur, the error
// goes back to the model as the tool's result and the run goes on. A call whose result is already
// recorded (a worker lost after the call, before Temporal heard of it) answers that result again
// instead of calling the server twice.
import { ApplicationFailure, Context } from "@temporalio/activity";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpListInput, McpToolCallInput, ToolCallResult } from "../../../core/contracts/agent-run.js";
import {
  MAX_MCP_DESCRIPTION_CHARS,
  MAX_MCP_SCHEMA_BYTES,
  MAX_MCP_TOOLS,
  mcpWireName,
  type McpListResult,
  type McpToolOffer,
} from "../../../core/contracts/mcp-servers.js";
import type { AgentActivityContext } from "./agent-context.js";
import { recordAgentStep } from "./agent-steps.js";
import { heartbeating } from "./heartbeating.js";
import { sorted, withMcpSession } from "./mcp-client.js";
import { argumentsOf, asContent, toolError } from "./tool-arguments.js";

/** Attempts at a server that fails in a way another attempt may cure, before the model hears of it. */
export const MCP_ATTEMPTS = 3;

type McpDeps = Pick<AgentActivityContext, "prisma" | "clock" | "seal" | "egress" | "credentialsFor">;

const clientDeps = (deps: McpDeps) => ({ egress: deps.egress, credentials: deps.credentialsFor });

/** Retried by Temporal while attempts are left; false: the model gets the error. */
const retryLeft = () => Context.current().info.attempt < MCP_ATTEMPTS;

/** A server's tools offered to the model, recorded as a tool step of the run. */
export async function agentListMcpTools(deps: McpDeps, input: McpListInput): Promise<McpListResult> {
  const startedAt = deps.clock.now();
  const { server } = input;
  let result: McpListResult;
  let error: string | undefined;
  try {
    const tools = await heartbeating(() =>
      withMcpSession(clientDeps(deps), input.workspaceId, server, `${input.agentRunId}:${input.number}`, (session) =>
        session.listTools(),
      ),
    );
    result = offersOf(tools, input);
  } catch (thrown) {
    const failure = sorted(thrown, server);
    if (failure.transient && retryLeft()) throw ApplicationFailure.retryable(failure.message, "McpServerError");
    error = failure.message;
    result = { offers: [], note: `${failure.message}. Its tools are not available in this run.` };
  }
  await recordAgentStep(deps, {
    agentRunId: input.agentRunId,
    number: input.number,
    kind: "tool",
    name: `${server.label}${"__"}tools/list`,
    input: { url: server.url },
    output: error ? null : { tools: result.offers.map((offer) => offer.wireName), note: result.note ?? null },
    ...(error ? { error } : {}),
    startedAt,
  });
  return result;
}

/** The tools the allowlist lets through, within the bounds on their number and schema size. */
export function offersOf(tools: Tool[], input: Pick<McpListInput, "server" | "serverIndex" | "offeredBefore">) {
  const { server } = input;
  const offers: McpToolOffer[] = [];
  const left: string[] = [];
  const room = Math.max(0, MAX_MCP_TOOLS - input.offeredBefore);
  for (const tool of tools) {
    if (typeof tool.name !== "string" || (server.tools && !server.tools.includes(tool.name))) continue;
    const wireName = mcpWireName(server.label, tool.name);
    const schema: Record<string, unknown> = { ...tool.inputSchema };
    delete schema.$schema;
    if (JSON.stringify(schema).length > MAX_MCP_SCHEMA_BYTES) {
      left.push(`${tool.name} (input schema over ${MAX_MCP_SCHEMA_BYTES} bytes)`);
    } else if (offers.some((offer) => offer.wireName === wireName)) {
      left.push(`${tool.name} (its name is another tool's once cut to the characters allowed)`);
    } else if (offers.length >= room) {
      left.push(`${tool.name} (over ${MAX_MCP_TOOLS} MCP tools in all)`);
    } else {
      offers.push({
        wireName,
        server: input.serverIndex,
        tool: tool.name,
        description: (tool.description ?? tool.title ?? "").slice(0, MAX_MCP_DESCRIPTION_CHARS),
        inputSchema: schema,
        approval: server.approvalTools?.includes(tool.name) ?? false,
      });
    }
  }
  const missing = (server.tools ?? []).filter((name) => !tools.some((tool) => tool.name === name));
  const notes = [
    left.length > 0 ? `left out: ${left.slice(0, 20).join(", ")}` : undefined,
    missing.length > 0 ? `not listed by the server: ${missing.slice(0, 20).join(", ")}` : undefined,
  ].filter(Boolean);
  return {
    offers,
    ...(notes.length > 0 ? { note: `MCP server ${server.label}: ${notes.join("; ")}` } : {}),
  };
}

/** One call of an MCP server's tool; its result (or error) is what the model gets back. */
export async function agentMcpToolCall(deps: McpDeps, input: McpToolCallInput): Promise<ToolCallResult> {
  const done = await recordedResult(deps, input);
  if (done) return done;
  const startedAt = deps.clock.now();
  const args = argumentsOf(input.call.arguments);
  let result: ToolCallResult;
  if (typeof args === "string") {
    result = toolError(`invalid arguments for ${input.call.name}: ${args}`);
  } else {
    try {
      const answer = await heartbeating(() =>
        withMcpSession(
          clientDeps(deps),
          input.workspaceId,
          input.server,
          `${input.agentRunId}:${input.number}`,
          (session) => session.callTool(input.tool, args),
        ),
      );
      result = resultOf(answer, input.call.name);
    } catch (thrown) {
      const failure = sorted(thrown, input.server);
      if (failure.transient && retryLeft()) throw ApplicationFailure.retryable(failure.message, "McpServerError");
      result = toolError(`${input.call.name} failed: ${failure.message}`);
    }
  }
  await recordAgentStep(deps, {
    agentRunId: input.agentRunId,
    number: input.number,
    kind: "tool",
    name: input.call.name,
    input: { id: input.call.id, arguments: input.call.arguments },
    output: result.isError ? null : { content: result.content },
    error: result.isError ? result.content : undefined,
    startedAt,
  });
  return result;
}

/** The call's result as the model reads it: its text, and its structured content when there is some. */
function resultOf(answer: CallToolResult, wireName: string): ToolCallResult {
  const text = (answer.content ?? [])
    .map((item) => {
      if (item.type === "text") return item.text;
      if (item.type === "resource") {
        return "text" in item.resource ? item.resource.text : `[resource ${item.resource.uri}]`;
      }
      if (item.type === "resource_link") return `[resource ${item.uri}]`;
      return `[${item.type} ${item.mimeType}]`;
    })
    .join("\n");
  if (answer.isError) return toolError(`${wireName} failed: ${text.slice(0, 2000)}`);
  const structured = answer.structuredContent;
  return { content: asContent(structured ? { content: text, structured_content: structured } : text), isError: false };
}

/** The result of a call whose step is recorded: a retried attempt after the call had finished. */
async function recordedResult(
  { prisma, seal }: Pick<McpDeps, "prisma" | "seal">,
  input: McpToolCallInput,
): Promise<ToolCallResult | undefined> {
  const step = await prisma.agentStep.findUnique({
    where: { agentRunId_number: { agentRunId: input.agentRunId, number: input.number } },
    select: { kind: true, output: true, error: true },
  });
  if (!step || step.kind !== "tool") return undefined;
  if (step.error !== null) return { content: seal.openText(step.error), isError: true };
  const output = seal.open(step.output) as { content?: unknown } | null;
  return { content: typeof output?.content === "string" ? output.content : asContent(output), isError: false };
}
