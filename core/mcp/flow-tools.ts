// The flows a workspace serves as MCP tools: its active flows whose trigger is an `mcp_tool` node,
// read from the database on every listing and call (a flow saved, activated or deactivated shows at
// once in every API process). Two flows may name the same tool: the older flow's is served.
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import { storedDefinition } from "../contracts/flow-definition.js";
import { mcpToolConfig, type McpToolConfig } from "../nodes/mcp-tool/mcp-tool.node.js";

/** Tools one workspace serves at most (the oldest flows first). */
export const MAX_FLOW_TOOLS = 200;

export interface FlowTool extends McpToolConfig {
  flowId: string;
  flowName: string;
}

/** The workspace's tools, by name, oldest flow first. */
export async function listFlowTools(prisma: PrismaClient, workspaceId: string): Promise<FlowTool[]> {
  const rows = await sqlQuery<{ id: string; name: string; definition: unknown }>(
    prisma,
    Prisma.sql`
      SELECT id, name, definition FROM flows
      WHERE workspace_id = ${workspaceId} AND status = 'active'
        AND definition @> ${JSON.stringify({ nodes: [{ type: "mcp_tool" }] })}::jsonb
      ORDER BY created_at, id
      LIMIT ${MAX_FLOW_TOOLS * 2}`,
  );
  const tools = new Map<string, FlowTool>();
  for (const row of rows) {
    const entry = storedDefinition(row.definition).nodes.find((node) => node.type === "mcp_tool");
    // The definition was checked when saved; a config that no longer parses is not served.
    const config = mcpToolConfig.safeParse(entry?.config ?? {});
    if (!config.success || tools.has(config.data.name)) continue;
    tools.set(config.data.name, { ...config.data, flowId: row.id, flowName: row.name });
    if (tools.size >= MAX_FLOW_TOOLS) break;
  }
  return [...tools.values()];
}
