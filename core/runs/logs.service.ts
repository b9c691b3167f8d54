// The execution log: entries written through env.log and by nodes, newest first.
import type { PrismaClient } from "../../lib/db.js";

/** From least to most severe: a least level returns it and every level after it. */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LogFilter {
  runId?: string;
  /** The entries one node wrote (with runId: in that run). */
  nodeId?: string;
  /** The least severe level returned. */
  level?: LogLevel;
}

/** The levels at or above `level` (all of them without one). */
export const levelsFrom = (level: LogLevel | undefined) =>
  level === undefined ? undefined : LOG_LEVELS.slice(LOG_LEVELS.indexOf(level));

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
