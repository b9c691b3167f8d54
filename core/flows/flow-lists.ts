import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import type { TimeIdKey } from "../../lib/keyset.js";
import { lastRunOf, listItem, type FlowStatus, type ListRow } from "./flow-views.js";

/** What GET /api/flows asks: a status, words of the name (`q`), a page size and where it continues. */
export interface FlowListQuery {
  status?: FlowStatus;
  /** Words the name contains (case-insensitive, taken literally: % and _ match themselves). */
  q?: string;
  /** A tag the flow has. */
  tag?: string;
  limit: number;
  after?: TimeIdKey;
}

/** A LIKE pattern matching names that contain `text` literally. */
const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Flows, newest change first, each with its last run: one statement, the newest run of each
 * flow found by a lateral lookup on the runs index (workspace, flow, started_at). `after`
 * continues after a flow a page showed (its update time and id).
 */
export async function listFlows(prisma: PrismaClient, workspaceId: string, query: FlowListQuery) {
  const after = query.after;
  const rows = await sqlQuery<ListRow>(
    prisma,
    Prisma.sql`
      SELECT f.id, f.name, f.status::text AS status, f.version, f.draft_version AS "draftVersion", f.updated_at AS "updatedAt", f.tags,
             r.id AS "runId", r.status::text AS "runStatus", r.started_at AS "runStartedAt",
             r.finished_at AS "runFinishedAt", r.duration_ms AS "runDurationMs"
      FROM flows f
      LEFT JOIN LATERAL (
        SELECT id, status, started_at, finished_at, duration_ms FROM runs
        WHERE workspace_id = f.workspace_id AND flow_id = f.id
        ORDER BY started_at DESC, id DESC LIMIT 1
      ) r ON true
      WHERE f.workspace_id = ${workspaceId}
        ${query.status ? Prisma.sql`AND f.status = ${query.status}::"FlowStatus"` : Prisma.empty}
        ${query.q ? Prisma.sql`AND f.name ILIKE ${containsPattern(query.q)}` : Prisma.empty}
        ${query.tag ? Prisma.sql`AND f.tags @> ARRAY[${query.tag}]::text[]` : Prisma.empty}
        ${after ? Prisma.sql`AND (f.updated_at, f.id) < (${after.time}, ${after.id})` : Prisma.empty}
      ORDER BY f.updated_at DESC, f.id DESC
      LIMIT ${query.limit}`,
  );
  return rows.map((row) => ({
    ...listItem(row),
    tags: row.tags ?? [],
    draft_version: row.draftVersion,
    last_run: lastRunOf(row),
  }));
}
