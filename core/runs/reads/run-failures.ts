// A flow's failed runs grouped by the node that failed and its error (GET /api/runs/failures):
// what a fix answers, each group one bulk rerun away. Errors are sealed at rest, so the latest
// failures are read and grouped here, not in SQL. A failure already rerun to success is left out.
import type { JsonSeal } from "../../../lib/crypto/sealed-json.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../../lib/db.js";
import type { RunError } from "../../contracts/run-flow.js";

/** How many of the latest failures are grouped; how many run ids a group names. */
export const FAILURES_READ = 2000;
const IDS_PER_GROUP = 100;
const MESSAGE_CHARS = 300;

export interface FailureGroup {
  node_id: string | null;
  error: string;
  count: number;
  first_at: string;
  last_at: string;
  versions: number[];
  run_ids: string[];
}

/** The failed runs of the flow since `since` (none already rerun to success), grouped, the largest group first. */
export async function failureGroups(
  { prisma, seal }: { prisma: PrismaClient; seal: JsonSeal },
  workspaceId: string,
  flowId: string,
  since: Date | undefined,
): Promise<{ groups: FailureGroup[]; runs: number; truncated: boolean }> {
  const rows = await sqlQuery<{ id: string; error: unknown; version: number; startedAt: Date }>(
    prisma,
    Prisma.sql`
      SELECT r.id, r.error, r.version, r.started_at AS "startedAt" FROM runs r
      WHERE r.workspace_id = ${workspaceId} AND r.flow_id = ${flowId} AND r.status = 'failed' AND NOT r.test
        ${since ? Prisma.sql`AND r.started_at >= ${since}` : Prisma.empty}
        AND NOT EXISTS (SELECT 1 FROM runs fixed WHERE fixed.rerun_of = r.id AND fixed.status = 'success')
      ORDER BY r.started_at DESC, r.id DESC LIMIT ${FAILURES_READ + 1}`,
  );
  const truncated = rows.length > FAILURES_READ;
  const groups = new Map<string, FailureGroup>();
  for (const row of rows.slice(0, FAILURES_READ)) {
    const error = (seal.open(row.error) ?? { message: "" }) as RunError;
    const nodeId = error.node_id ?? null;
    const message = (error.origin?.message ?? error.message ?? "").slice(0, MESSAGE_CHARS);
    const key = JSON.stringify([nodeId, message]);
    const at = row.startedAt.toISOString();
    const group = groups.get(key) ?? {
      node_id: nodeId,
      error: message,
      count: 0,
      first_at: at,
      last_at: at,
      versions: [],
      run_ids: [],
    };
    group.count++;
    // Newest first: each row is older than those before it.
    group.first_at = at;
    if (!group.versions.includes(row.version)) group.versions.push(row.version);
    if (group.run_ids.length < IDS_PER_GROUP) group.run_ids.push(row.id);
    groups.set(key, group);
  }
  const sorted = [...groups.values()].sort((a, b) => b.count - a.count || b.last_at.localeCompare(a.last_at));
  for (const group of sorted) group.versions.sort((a, b) => a - b);
  return { groups: sorted, runs: Math.min(rows.length, FAILURES_READ), truncated };
}
