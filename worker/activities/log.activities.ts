import type { Config } from "../../lib/config.js";
import { createJsonSeal } from "../../lib/crypto/sealed-json.js";
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

export function createLogActivities({
  prisma,
  config,
}: {
  prisma: PrismaClient;
  config: Pick<Config, "SVC_ENCRYPTION_KEY">;
}) {
  // Messages and data are run payloads: stored sealed (see lib/crypto/sealed-json.ts).
  const seal = createJsonSeal(config.SVC_ENCRYPTION_KEY);
  return {
    /** Writes one execution log entry; returns its id as a string (bigints do not cross JSON). */
    async writeLogEntry(entry: LogEntryInput): Promise<string> {
      const row = await prisma.logEntry.create({
        data: {
          workspaceId: entry.workspaceId,
          runId: entry.runId,
          nodeId: entry.nodeId,
          level: entry.level,
          message: seal.sealText(entry.message),
          data: entry.data === undefined ? undefined : (seal.seal(entry.data) as object),
        },
        select: { id: true },
      });
      return row.id.toString();
    },
  };
}
