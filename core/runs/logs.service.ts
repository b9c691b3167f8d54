// The execution log: entries written through env.log and by nodes, newest first.
import type { PrismaClient } from "../../lib/db.js";
import { levelsFrom, type LogLevel } from "../contracts/log-levels.js";

export interface LogFilter {
  runId?: string;
  /** The entries one node wrote (with runId: in that run). */
  nodeId?: string;
  /** The least severe level returned. */
  level?: LogLevel;
}

export function createLogsService({ prisma }: { prisma: PrismaClient }) {
  return {
    /** Newest first; `before` continues below an entry a page showed (its id). */
    async list(workspaceId: string, query: LogFilter & { limit: number; before?: bigint }) {
      const levels = levelsFrom(query.level);
      const rows = await prisma.logEntry.findMany({
        where: {
          workspaceId,
          ...(query.runId ? { runId: query.runId } : {}),
          ...(query.nodeId ? { nodeId: query.nodeId } : {}),
          ...(levels ? { level: { in: [...levels] } } : {}),
          ...(query.before === undefined ? {} : { id: { lt: query.before } }),
        },
        orderBy: { id: "desc" },
        take: query.limit,
      });
      return rows.map((entry) => ({
        id: entry.id.toString(),
        run_id: entry.runId,
        node_id: entry.nodeId,
        level: entry.level,
        message: entry.message,
        data: entry.data ?? null,
        created_at: entry.createdAt.toISOString(),
      }));
    },
  };
}

export type LogsService = ReturnType<typeof createLogsService>;
