import type { LogsService } from "../../../core/runs/logs.service.js";
import { decodeCursor, keysetPage } from "../../http/cursor.js";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import { z } from "zod";
import { listLogsQuerySchema, logEntrySchema } from "./logs.schema.js";

const isLogCursor = (value: unknown): value is { id: string } =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { id?: unknown }).id === "string" &&
  /^\d+$/.test((value as { id: string }).id);

/** GET /api/logs: entries written through env.log and by nodes, newest first. */
export function createLogsRouter({ logs }: { logs: LogsService }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/logs", "runs");
  route(
    {
      method: "get",
      path: "/",
      scope: "read",
      summary: "Execution log entries, newest first, by run, node and least level",
      query: listLogsQuerySchema,
      responses: {
        200: {
          description: "A page of entries",
          schema: z.object({ items: z.array(logEntrySchema), next_cursor: z.string().nullable() }),
        },
        400: "Bad query",
      },
    },
    async (req, res) => {
      const { run_id, node_id, level, limit, cursor } = req.input.query;
      const after = decodeCursor(cursor, isLogCursor);
      const items = await logs.list(req.input.workspaceId, {
        runId: run_id,
        nodeId: node_id,
        level,
        limit: limit + 1,
        before: after && BigInt(after.id),
      });
      const { page, next_cursor } = keysetPage(items, limit, (last) => ({ id: last.id }));
      res.json({ items: page, next_cursor });
    },
  );
  return router;
}
