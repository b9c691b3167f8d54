import { afterTimeAndId, type TimeIdKey } from "../../lib/keyset.js";
import { levelsFrom, type LogLevel } from "../contracts/log-levels.js";
import type { AgentContext } from "./agent-context.js";

export interface AgentLogQuery {
  agentRunId?: string;
  agent?: string;
  level?: LogLevel;
  limit: number;
  after?: TimeIdKey;
}

/** The agent log, newest first; `after` continues after an entry a page showed (its time and id). */
export async function listAgentLogs(
  { prisma, seal }: Pick<AgentContext, "prisma" | "seal">,
  workspaceId: string,
  query: AgentLogQuery,
) {
  const levels = levelsFrom(query.level);
  const rows = await prisma.agentLog.findMany({
    where: {
      workspaceId,
      ...(query.agentRunId ? { agentRunId: query.agentRunId } : {}),
      ...(query.agent ? { agentId: query.agent } : {}),
      ...(levels ? { level: { in: [...levels] } } : {}),
      ...afterTimeAndId(query.after, { time: "createdAt", id: "id" }, "desc"),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit,
  });
  return rows.map((row) => ({
    id: row.id,
    agent_run_id: row.agentRunId,
    agent_id: row.agentId,
    level: row.level,
    message: seal.openText(row.message),
    data: seal.open(row.data),
    created_at: row.createdAt.toISOString(),
  }));
}
