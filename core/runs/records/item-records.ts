// The records of a node that runs per item (docs/engine.md, "Items"): one row per finished item in
// run_items (its result or error, sealed), written in groups, and the node's progress in
// run_item_sets, updated by the same statement. A retried activity reads the rows back and runs
// only the items they lack; a row is never written twice (ON CONFLICT DO NOTHING).
import type { Clock } from "../../../lib/clock.js";
import type { JsonSeal } from "../../../lib/crypto/sealed-json.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../../lib/db.js";

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
