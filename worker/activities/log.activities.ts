import type { PrismaClient } from "../../lib/db.js";

export type LogLevel = "debug" | "info" | "warn" | "error";

export interface LogEntryInput {
  workspaceId?: string;
  runId?: string;
  nodeId?: string;
  level: LogLevel;
  message: string;
  data?: unknown;
}

export function createLogActivities({ prisma }: { prisma: PrismaClient }) {
  return {
    /** Writes one execution log entry; returns its id as a string (bigints do not cross JSON). */
    async writeLogEntry(entry: LogEntryInput): Promise<string> {
      const row = await prisma.logEntry.create({
        data: {
          workspaceId: entry.workspaceId,
          runId: entry.runId,
          nodeId: entry.nodeId,
          level: entry.level,
          message: entry.message,
          data: entry.data === undefined ? undefined : (entry.data as object),
        },
        select: { id: true },
      });
      return row.id.toString();
    },
  };
}
