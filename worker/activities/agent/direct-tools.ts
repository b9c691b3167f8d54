// The tools an activity runs itself: every tool but flow.run (which the workflow runs as a child
// workflow, see flow-run-tool.ts).
import { derivedId } from "../../../lib/ids.js";
import { jsonValue } from "../../../lib/db.js";
import type { ToolArguments } from "../../../core/agents/tools.js";
import type { AgentToolName } from "../../../core/contracts/agent-catalog.js";
import type { ToolCallInput } from "../../../core/contracts/agent-run.js";
import { parseBody } from "../../../core/nodes/shared/http.js";
import type { AgentActivityContext } from "./agent-context.js";
import { writeAgentLog } from "./agent-steps.js";

type ToolDeps = Pick<AgentActivityContext, "prisma" | "clock" | "seal" | "egress">;
type DirectToolName = Exclude<AgentToolName, "flow.run">;
type DirectTool<T extends DirectToolName> = (
  deps: ToolDeps,
  args: ToolArguments<T>,
  input: ToolCallInput,
) => Promise<unknown>;

export async function httpCallTool(
  { egress }: ToolDeps,
  args: ToolArguments<"http.call">,
  input: ToolCallInput,
): Promise<unknown> {
  const body =
    args.body === undefined || args.method === "GET" || args.method === "HEAD"
      ? undefined
      : typeof args.body === "string"
        ? args.body
        : JSON.stringify(args.body);
  const headers = new Headers(args.headers);
  if (body !== undefined && typeof args.body !== "string" && !headers.has("content-type")) {
    headers.set("content-type", "application/json");
  }
  // A retried attempt repeats the request: the key lets the receiver recognise it.
  headers.set("Idempotency-Key", `${input.agentRunId}:${input.number}`);
  const response = await egress.fetch(args.url, { method: args.method, headers, body, timeoutMs: 60_000 });
  const contentType = response.headers.get("content-type");
  return {
    status: response.status,
    content_type: contentType,
    body: parseBody(await response.text(), contentType, "auto"),
  };
}

export async function logWriteTool(
  deps: ToolDeps,
  args: ToolArguments<"log.write">,
  input: ToolCallInput,
): Promise<unknown> {
  await writeAgentLog(deps, input, derivedId("alog", [`${input.agentRunId}:${input.number}`]), args);
  return { ok: true };
}

export async function memoryReadTool(
  { prisma }: ToolDeps,
  args: ToolArguments<"memory.read">,
  input: ToolCallInput,
): Promise<unknown> {
  const found = await prisma.agentMemory.findUnique({
    where: { workspaceId_agentId_key: { workspaceId: input.workspaceId, agentId: input.agentId, key: args.key } },
  });
  return found ? { key: args.key, found: true, value: found.value } : { key: args.key, found: false, value: null };
}

export async function memoryWriteTool(
  { prisma, clock }: ToolDeps,
  args: ToolArguments<"memory.write">,
  input: ToolCallInput,
): Promise<unknown> {
  const now = clock.now();
  const value = jsonValue(args.value ?? null);
  await prisma.agentMemory.upsert({
    where: { workspaceId_agentId_key: { workspaceId: input.workspaceId, agentId: input.agentId, key: args.key } },
    create: {
      workspaceId: input.workspaceId,
      agentId: input.agentId,
      key: args.key,
      value,
      agentRunId: input.agentRunId,
      updatedAt: now,
    },
    update: { value, agentRunId: input.agentRunId, writtenBy: null, updatedAt: now },
  });
  return { key: args.key, written: true };
}

const DIRECT_TOOLS: { [T in DirectToolName]: DirectTool<T> } = {
  "http.call": httpCallTool,
  "log.write": logWriteTool,
  "memory.read": memoryReadTool,
  "memory.write": memoryWriteTool,
};

/** Runs the tool `name` with arguments checked against its schema; its output, or it throws. */
export async function runDirectTool(
  deps: ToolDeps,
  name: AgentToolName,
  args: ToolArguments<AgentToolName>,
  input: ToolCallInput,
): Promise<unknown> {
  if (name === "flow.run") throw new Error("flow.run runs as a child workflow, not in this activity");
  return (DIRECT_TOOLS[name] as DirectTool<DirectToolName>)(deps, args as never, input);
}
