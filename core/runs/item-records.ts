// The records of a node that runs per item (docs/engine.md, "Items"): one row per finished item in
// run_items (its result or error, sealed), written in groups, and the node's progress in
// run_item_sets, updated by the same statement. A retried activity reads the rows back and runs
// only the items they lack; a row is never written twice (ON CONFLICT DO NOTHING).
import type { Clock } from "../../lib/clock.js";
import type { JsonSeal } from "../../lib/crypto/sealed-json.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";

/** What an item's failure shows: its message and its type (NodeError, NodeFatalError, ...). */
export interface ItemError {
  message: string;
  code: string;
}

/** A finished item: its result, or its error. */
export type ItemRecord =
  { index: number; status: "success"; result: unknown } | { index: number; status: "failed"; error: ItemError };

export interface ItemRecordsDeps {
  prisma: PrismaClient;
  clock: Clock;
  seal: JsonSeal;
}

interface ItemRow {
  idx: number;
  status: "success" | "failed";
  result: unknown;
  error: unknown;
}

export function createItemRecords({ prisma, clock, seal }: ItemRecordsDeps) {
  return {
    /**
     * Records how many items the node has (its progress row) and answers the items recorded by
     * earlier attempts, in one statement.
     */
    async begin(runId: string, nodeId: string, total: number): Promise<Map<number, ItemRecord>> {
      const rows = await sqlQuery<ItemRow>(
        prisma,
        Prisma.sql`
          WITH item_set AS (
            INSERT INTO run_item_sets (run_id, node_id, total, updated_at)
            VALUES (${runId}, ${nodeId}, ${total}, ${clock.now()})
            ON CONFLICT (run_id, node_id) DO UPDATE SET total = EXCLUDED.total, updated_at = EXCLUDED.updated_at
          )
          SELECT idx, status::text AS status, result, error FROM run_items
          WHERE run_id = ${runId} AND node_id = ${nodeId}`,
      );
      const recorded = new Map<number, ItemRecord>();
      for (const row of rows) {
        recorded.set(
          row.idx,
          row.status === "success"
            ? { index: row.idx, status: "success", result: seal.open(row.result) ?? null }
            : { index: row.idx, status: "failed", error: seal.open(row.error) as ItemError },
        );
      }
      return recorded;
    },

    /**
     * Writes finished items in one statement (their results and errors sealed) and counts them in
     * the node's progress; an item already recorded is left as it is and not counted again.
     */
    async write(runId: string, nodeId: string, attempt: number, items: ItemRecord[]): Promise<void> {
      if (items.length === 0) return;
      const rows = items.map((item) =>
        item.status === "success"
          ? { idx: item.index, status: "success", result: seal.seal(item.result ?? null), error: null }
          : { idx: item.index, status: "failed", result: null, error: seal.seal(item.error) },
      );
      const now = clock.now();
      await sqlQuery(
        prisma,
        Prisma.sql`
          WITH written AS (
            INSERT INTO run_items (run_id, node_id, idx, status, result, error, attempt, finished_at)
            SELECT ${runId}, ${nodeId}, r.idx, r.status::"ItemStatus", r.result, r.error, ${attempt}, ${now}
            FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(idx int, status text, result jsonb, error jsonb)
            ON CONFLICT (run_id, node_id, idx) DO NOTHING
            RETURNING status
          )
          UPDATE run_item_sets SET
            done = done + (SELECT count(*) FROM written WHERE status = 'success'),
            failed = failed + (SELECT count(*) FROM written WHERE status = 'failed'),
            updated_at = ${now}
          WHERE run_id = ${runId} AND node_id = ${nodeId}`,
      );
    },
  };
}

export type ItemRecords = ReturnType<typeof createItemRecords>;

/** A per-item node's progress, as the run page shows it while the node runs. */
export interface ItemsProgressView {
  node_id: string;
  total: number;
  done: number;
  failed: number;
  updated_at: string;
}

/** An item as the run page lists it: its result or error (a large result previewed). */
export interface ItemView {
  index: number;
  status: "success" | "failed";
  result: unknown;
  error: ItemError | null;
  attempt: number;
  finished_at: string;
}

/** The progress of each of the run's per-item nodes (the run is the workspace's: the caller checked). */
export async function itemsProgress(prisma: PrismaClient, runId: string): Promise<ItemsProgressView[]> {
  const rows = await prisma.runItemSet.findMany({ where: { runId }, orderBy: { updatedAt: "asc" } });
  return rows.map((row) => ({
    node_id: row.nodeId,
    total: row.total,
    done: row.done,
    failed: row.failed,
    updated_at: row.updatedAt.toISOString(),
  }));
}

/** A page of one node's items in index order, after `afterIndex`; `limit + 1` rows read, so the caller knows of a next page. */
export async function itemsPage(
  { prisma, seal }: Pick<ItemRecordsDeps, "prisma" | "seal">,
  runId: string,
  nodeId: string,
  query: { afterIndex?: number; limit: number; status?: "success" | "failed"; shown: (value: unknown) => unknown },
): Promise<ItemView[]> {
  const rows = await prisma.runItem.findMany({
    where: {
      runId,
      nodeId,
      ...(query.afterIndex === undefined ? {} : { index: { gt: query.afterIndex } }),
      ...(query.status ? { status: query.status } : {}),
    },
    orderBy: { index: "asc" },
    take: query.limit + 1,
  });
  return rows.map((row) => ({
    index: row.index,
    status: row.status,
    result: row.status === "success" ? query.shown(seal.open(row.result)) : null,
    error: row.status === "failed" ? (seal.open(row.error) as ItemError) : null,
    attempt: row.attempt,
    finished_at: row.finishedAt.toISOString(),
  }));
}
