// Flows served as MCP tools (docs/mcp.md): what tools/list shows and what tools/call does. A call
// starts an ordinary run (trigger `mcp`, attributed to its caller) with the arguments as its input,
// checked against the tool's schema, and waits for its end up to the tool's timeout_ms. The
// endpoint's own tool, svc_run_status, reads a run the same caller started through MCP.
import type { Config } from "../../lib/config.js";
import type { PrismaClient } from "../../lib/db.js";
import { runHasEnded, UNENDED_RUN_STATUSES } from "../contracts/run-flow.js";
import { jsonSizeWithin } from "../flows/json-size.js";
import { argumentProblems } from "../nodes/mcp-tool/tool-schema.js";
import type { RunsService } from "../runs/runs.service.js";
import { actorId, type Actor } from "../workspaces/actor.js";
import { listFlowTools, type FlowTool } from "./flow-tools.js";

export const RUN_STATUS_TOOL = "svc_run_status";

export interface McpToolsDeps {
  prisma: PrismaClient;
  runs: RunsService;
  config: Pick<Config, "MCP_MAX_INPUT_BYTES" | "MCP_MAX_RUNNING_PER_CALLER">;
}

/** A tool as tools/list shows it (MCP's Tool). */
export interface ListedTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
}

/** What a call answers: MCP's CallToolResult (text and, for an object, structured content). */
export type ToolResult = {
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/** A call MCP treats as a protocol error (-32602): a tool the workspace does not serve. */
export class UnknownTool extends Error {
  override name = "UnknownTool";
  constructor(name: string) {
    super(`Unknown tool: ${name.slice(0, 100)}`);
  }
}

const runStatusTool: ListedTool = {
  name: RUN_STATUS_TOOL,
  title: "Run status",
  description:
    "The status of a run a tool call of yours started (its run_id): running, success, failed or cancelled, with its output or error once it has ended.",
  inputSchema: {
    type: "object",
    properties: { run_id: { type: "string", pattern: "^run_[0-9a-f]{24}$", description: "The run's id (run_…)" } },
    required: ["run_id"],
    additionalProperties: false,
  },
};

const text = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value, null, 2));

const failure = (message: string): ToolResult => ({ content: [{ type: "text", text: message }], isError: true });

/** A run as a call's result: its output when it succeeded, its error when it did not, its address while it runs. */
function runResult(run: { id: string; status: string; output: unknown; error: unknown }): ToolResult {
  const address = { run_id: run.id, status_url: `/api/runs/${run.id}` };
  // A queued run (waiting at its flow's gate) has not ended either.
  if (!runHasEnded(run.status)) {
    return {
      content: [
        {
          type: "text",
          text: `The run ${run.id} is still running. Call ${RUN_STATUS_TOOL} with {"run_id": "${run.id}"} later for its output (or GET /api/runs/${run.id}).`,
        },
      ],
      structuredContent: { ...address, status: "running" },
    };
  }
  if (run.status !== "success") {
    const message = (run.error as { message?: string } | null)?.message ?? `the run ${run.status}`;
    return {
      content: [{ type: "text", text: `The run ${run.id} ${run.status}: ${message}` }],
      structuredContent: { ...address, status: run.status, error: run.error ?? null },
      isError: true,
    };
  }
  const output = run.output ?? null;
  return {
    content: [{ type: "text", text: text(output) }],
    ...(typeof output === "object" && output !== null && !Array.isArray(output)
      ? { structuredContent: output as Record<string, unknown> }
      : {}),
  };
}

export function createMcpToolsService(deps: McpToolsDeps) {
  const { prisma, runs, config } = deps;

  /** Refused while the caller has this many MCP runs still running (or queued): a flow calling itself through MCP stops there. */
  async function runningOf(actor: Actor): Promise<number> {
    return prisma.run.count({
      where: {
        workspaceId: actor.workspace.workspaceId,
        trigger: "mcp",
        status: { in: [...UNENDED_RUN_STATUSES] },
        createdBy: actorId(actor),
      },
    });
  }

  async function callFlowTool(actor: Actor, tool: FlowTool, args: Record<string, unknown>): Promise<ToolResult> {
    if (jsonSizeWithin(args, config.MCP_MAX_INPUT_BYTES) > config.MCP_MAX_INPUT_BYTES) {
      return failure(`The arguments are over ${config.MCP_MAX_INPUT_BYTES} bytes as JSON: send less`);
    }
    const problems = argumentProblems(tool.input_schema, args);
    if (problems.length > 0)
      return failure(`The arguments do not match the tool's input schema: ${problems.join("; ")}`);
    if ((await runningOf(actor)) >= config.MCP_MAX_RUNNING_PER_CALLER) {
      return failure(
        `Too many runs started through MCP are still running for this caller (at most ${config.MCP_MAX_RUNNING_PER_CALLER}): wait for some to end`,
      );
    }
    const started = await runs.startFromTriggerAndWait(
      actor.workspace.workspaceId,
      tool.flowId,
      args,
      { trigger: "mcp", createdBy: actorId(actor) },
      tool.timeout_ms,
    );
    return runResult({ ...started.last, id: started.run.id });
  }

  async function runStatus(actor: Actor, args: Record<string, unknown>): Promise<ToolResult> {
    const runId = typeof args.run_id === "string" ? args.run_id : "";
    const mine = /^run_[0-9a-f]{24}$/.test(runId)
      ? await prisma.run.findFirst({
          where: { id: runId, workspaceId: actor.workspace.workspaceId, trigger: "mcp", createdBy: actorId(actor) },
          select: { id: true },
        })
      : null;
    if (!mine) return failure(`No run ${runId.slice(0, 40)} started by your tool calls`);
    const run = await runs.get(actor.workspace.workspaceId, runId);
    return runResult(run);
  }

  return {
    /** tools/list: the flows' tools, then the endpoint's own. */
    async list(workspaceId: string): Promise<ListedTool[]> {
      const tools = await listFlowTools(prisma, workspaceId);
      return [
        ...tools.map((tool) => ({
          name: tool.name,
          title: tool.flowName,
          description: tool.description || `Runs the flow "${tool.flowName}"`,
          inputSchema: tool.input_schema as ListedTool["inputSchema"],
        })),
        runStatusTool,
      ];
    },

    /** tools/call: UnknownTool for a name the workspace does not serve; a run's failure is a result with isError. */
    async call(actor: Actor, name: string, args: Record<string, unknown>): Promise<ToolResult> {
      if (name === RUN_STATUS_TOOL) return runStatus(actor, args);
      const tool = (await listFlowTools(prisma, actor.workspace.workspaceId)).find((t) => t.name === name);
      if (!tool) throw new UnknownTool(name);
      return callFlowTool(actor, tool, args);
    },
  };
}

export type McpToolsService = ReturnType<typeof createMcpToolsService>;
