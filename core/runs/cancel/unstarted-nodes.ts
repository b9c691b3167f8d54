// The nodes of cancelled runs that have not started, so that the statement that ends the runs
// cancelled writes their `skipped` rows itself: a reader right after the cancel finds every node
// in the step log, not only once each run's workflow has wound down and written its own.
import { Prisma, sqlQuery, type PrismaClient } from "../../../lib/db.js";
import type { JsonSeal } from "../../../lib/crypto/sealed-json.js";
import type { FlowDefinition } from "../../contracts/flow-definition.js";
import type { RerunRecord } from "../records/run-records.js";

export interface UnstartedNode {
  nodeId: string;
  type: string;
}

/**
 * Per run, the nodes of its pinned definition that it may still have to show as skipped: all but
 * those a rerun or a retry carried over (its workflow writes their rows as it ends). Whether a
 * node has a row is decided by the statement that ends the run. A test run runs a draft that no
 * saved version holds: it gets none here (its workflow writes them).
 */
export async function unstartedNodes(
  { prisma, seal }: { prisma: PrismaClient; seal: JsonSeal },
  runIds: string[],
): Promise<Map<string, UnstartedNode[]>> {
  if (runIds.length === 0) return new Map();
  const rows = await sqlQuery<{
    id: string;
    rerun: unknown;
    retryOf: string | null;
    definition: FlowDefinition | null;
    retried: string[] | null;
  }>(
    prisma,
    Prisma.sql`
      SELECT r.id, r.rerun, r.retry_of AS "retryOf", v.definition,
        (SELECT array_agg(DISTINCT s.node_id) FROM run_steps s
          WHERE s.run_id = r.retry_of AND s.status = 'success') AS retried
      FROM runs r JOIN flow_versions v ON v.flow_id = r.flow_id AND v.version = r.version
      WHERE r.id = ANY(${runIds}::text[]) AND NOT r.test`,
  );
  return new Map(
    rows.map((row) => {
      const rerun = seal.open(row.rerun) as RerunRecord | null;
      // As the step log reads them (core/runs/reads/run-step-log.ts, carriedOver).
      const carried = new Set(rerun ? rerun.carried : row.retryOf ? (row.retried ?? []) : []);
      const nodes = (row.definition?.nodes ?? [])
        .filter((node) => !carried.has(node.id))
        .map((node) => ({ nodeId: node.id, type: node.type }));
      return [row.id, nodes];
    }),
  );
}
