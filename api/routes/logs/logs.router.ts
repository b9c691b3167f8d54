import type { PrismaClient } from "../../../lib/db.js";
import { decodeCursor, keysetPage } from "../../http/cursor.js";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import { LOG_LEVELS, listLogsQuerySchema } from "../runs/runs.schema.js";

const isLogCursor = (value: unknown): value is { id: string } =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { id?: unknown }).id === "string" &&
  /^\d+$/.test((value as { id: string }).id);

/** GET /api/logs: entries written through env.log and by nodes, newest first. */
export function createLogsRouter({ prisma }: { prisma: PrismaClient }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/logs", "runs");
  route(
    {
      method: "get",
      path: "/",
      summary: "Execution log entries, newest first, by run, node and least level",
      query: listLogsQuerySchema,
      responses: { 200: "A page of entries", 400: "Bad query" },
    },
    async (req, res) => {
      const { query, workspaceId } = req.input;
      const after = decodeCursor(query.cursor, isLogCursor);
      const levels = query.level ? LOG_LEVELS.slice(LOG_LEVELS.indexOf(query.level)) : undefined;
      const rows = await prisma.logEntry.findMany({
        where: {
          workspaceId,
          ...(query.run_id ? { runId: query.run_id } : {}),
          ...(query.node_id ? { nodeId: query.node_id } : {}),
          ...(levels ? { level: { in: [...levels] } } : {}),
          ...(after ? { id: { lt: BigInt(after.id) } } : {}),
        },
        orderBy: { id: "desc" },
        take: query.limit + 1,
      });
      const { page, next_cursor } = keysetPage(rows, query.limit, (last) => ({ id: last.id.toString() }));
      res.json({
        items: page.map((entry) => ({
          id: entry.id.toString(),
          run_id: entry.runId,
          node_id: entry.nodeId,
          level: entry.level,
          message: entry.message,
          data: entry.data ?? null,
          created_at: entry.createdAt.toISOString(),
        })),
        next_cursor,
      });
    },
  );
  return router;
}
