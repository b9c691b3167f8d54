// The execution log: entries written through env.log and by nodes, newest first.
import type { JsonSeal } from "../../lib/crypto/sealed-json.js";
import type { PrismaClient } from "../../lib/db.js";
import { levelsFrom, type LogLevel } from "../contracts/log-levels.js";

export interface LogFilter {
  runId?: string;
  /** The entries one node wrote (with runId: in that run). */
  nodeId?: string;
  /** The least severe level returned. */
  level?: LogLevel;
}

/** Messages and data are stored sealed with `seal` (run payloads at rest) and shown opened. */
export function createLogsService({ prisma, seal }: { prisma: PrismaClient; seal: JsonSeal }) {
  return {
    /**
     * Writes one entry about a run that the API, not a node, has to tell its author (a hook's
     * answer that left out headers the flow set).
     */
    async write(entry: {
      workspaceId: string;
      runId: string;
      nodeId?: string;
      level: LogLevel;
      message: string;
      data?: unknown;
    }): Promise<void> {
      await prisma.logEntry.create({
        data: {
          workspaceId: entry.workspaceId,
          runId: entry.runId,
          nodeId: entry.nodeId,
          level: entry.level,
          message: seal.sealText(entry.message),
          data: entry.data === undefined ? undefined : (seal.seal(entry.data) as object),
        },
      });
    },

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
        message: seal.openText(entry.message),
        data: seal.open(entry.data ?? null),
        created_at: entry.createdAt.toISOString(),
      }));
    },
  };
}

export type LogsService = ReturnType<typeof createLogsService>;
