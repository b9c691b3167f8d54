// Concurrency slots taken in PostgreSQL (docs/engine.md, "Concurrency gates"): a start whose key
// has a free slot and nobody queued takes it in one statement and its run never meets the gate;
// otherwise the start is counted as sent to the gate. The statement with which the run's
// workflow ends its record gives the slot back (endRunRecord: also when a cancel ended the record
// first, since the cancelled run's nodes stop only then). Concurrent starts and ends of one flow and key are
// ordered by PostgreSQL's lock on the key's counter row (INSERT … ON CONFLICT DO UPDATE sees
// the row's latest version).
import { createHash } from "node:crypto";
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";

/** The key's SHA-256 as the slots' tables keep it. */
export const slotKeyHash = (key: string) => createHash("sha256").update(key).digest("hex");

/** A slot a start asks for: its run, flow, rendered key and the limit of the run's version. */
export interface SlotAsk {
  runId: string;
  flowId: string;
  key: string;
  limit: number;
}

/**
 * Common table expressions taking a slot of the ask's flow and key for its run when fewer than
 * `limit` are held in the database and no run of the key is at its gate (`slot_counted` answers
 * `took`); otherwise the run is counted as sent to the gate (`took` false). Only when `when` (a
 * query) answers a row: the start statement's recorded run.
 */
export function takeSlotSql(slot: SlotAsk, when: Prisma.Sql, { gateOnly = false } = {}): Prisma.Sql {
  const keyHash = slotKeyHash(slot.key);
  const free = gateOnly ? Prisma.sql`false` : Prisma.sql`(c.gated = 0 AND c.held < ${slot.limit})`;
  return Prisma.sql`
    slot_counted AS (
      INSERT INTO concurrency_keys AS c (flow_id, key_hash, held, gated, took)
      SELECT ${slot.flowId}, ${keyHash}, ${gateOnly ? 0 : 1}, ${gateOnly ? 1 : 0}, ${!gateOnly} WHERE EXISTS (${when})
      ON CONFLICT (flow_id, key_hash) DO UPDATE SET
        touched_at = now(),
        took = ${free},
        held = c.held + CASE WHEN ${free} THEN 1 ELSE 0 END,
        gated = c.gated + CASE WHEN ${free} THEN 0 ELSE 1 END
      RETURNING took
    ), slot_row AS (
      INSERT INTO concurrency_slots (run_id, flow_id, key_hash, in_db)
      SELECT ${slot.runId}, ${slot.flowId}, ${keyHash}, took FROM slot_counted
    )`;
}

/**
 * Takes a slot for a run already recorded (takeSlotSql; the run's start statement takes it
 * itself when it can): true when taken. A repeat for the same run answers what the first
 * decided and counts nothing.
 */
export async function takeDbSlot(
  prisma: PrismaClient,
  slot: SlotAsk,
  { gateOnly = false }: { gateOnly?: boolean } = {},
): Promise<boolean> {
  const [row] = await sqlQuery<{ took: boolean }>(
    prisma,
    Prisma.sql`
    WITH earlier AS (
      SELECT in_db FROM concurrency_slots WHERE run_id = ${slot.runId}
    ), ${takeSlotSql(slot, Prisma.sql`SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM earlier)`, { gateOnly })}
    SELECT took FROM slot_counted UNION ALL SELECT in_db AS took FROM earlier`,
  );
  return row?.took ?? false;
}

/**
 * Common table expressions for a statement that ends runs: the slots of the runs `runIds` (a
 * query answering their ids) are given back, the key's counts lowered, each key's counter row
 * updated once with all of its runs' slots.
 */
export const freeSlotsSql = (runIds: Prisma.Sql) => Prisma.sql`
  freed_slots AS (
    DELETE FROM concurrency_slots WHERE run_id IN (${runIds})
    RETURNING flow_id, key_hash, in_db
  ), freed_keys AS (
    UPDATE concurrency_keys c SET held = c.held - f.held, gated = c.gated - f.gated, touched_at = now()
    FROM (
      SELECT flow_id, key_hash, count(*) FILTER (WHERE in_db)::int AS held, count(*) FILTER (WHERE NOT in_db)::int AS gated
      FROM freed_slots GROUP BY flow_id, key_hash
    ) f
    WHERE c.flow_id = f.flow_id AND c.key_hash = f.key_hash
    RETURNING c.flow_id, c.key_hash, c.gated
  )`;

/**
 * A slot taken in the database this long ago whose run's workflow is not running is freed by the
 * gate (its start may still be on its way before that).
 */
export const DB_SLOT_START_PATIENCE_MS = 30_000;

/**
 * The rows of `flowId` and the key's hash that may hold a slot back: the slots held in the
 * database, and runs sent to the gate whose record has ended, neither running nor queued (their workflow frees the row as it
 * ends; a workflow terminated after a cancel never does).
 */
export async function dbSlotHolders(
  prisma: PrismaClient,
  { flowId, keyHash }: { flowId: string; keyHash: string },
): Promise<Array<{ runId: string; inDb: boolean; takenAt: Date }>> {
  return sqlQuery(
    prisma,
    Prisma.sql`
    SELECT s.run_id AS "runId", s.in_db AS "inDb", s.taken_at AS "takenAt"
    FROM concurrency_slots s LEFT JOIN runs r ON r.id = s.run_id
    WHERE s.flow_id = ${flowId} AND s.key_hash = ${keyHash} AND (s.in_db OR r.status IS NULL OR r.status NOT IN ('running', 'queued'))`,
  );
}

/**
 * Frees the database slots of `runIds` whose workflows are no longer running (terminated from
 * outside, never started): their records end later (the reconciler), with no slot left to free.
 */
export async function freeDbSlots(prisma: PrismaClient, runIds: string[]): Promise<void> {
  if (runIds.length === 0) return;
  await sqlQuery(
    prisma,
    Prisma.sql`
    WITH ${freeSlotsSql(Prisma.sql`SELECT unnest(${runIds}::text[])`)}
    SELECT 1 FROM freed_keys`,
  );
}

/** A key's row with nothing held or gated is kept this long after its last start or end. */
export const CONCURRENCY_KEY_IDLE_MS = 86_400_000;
/** Rows deleted by one statement, and statements in one pass (the next hourly pass takes the rest). */
export const CONCURRENCY_KEY_PRUNE_BATCH = 5000;
export const CONCURRENCY_KEY_PRUNE_BATCHES_PER_PASS = 20;

/**
 * Deletes the counter rows of keys with nothing held or gated and no slot row, last touched before
 * `before`, in bounded batches; how many went. A start of the same key never loses its count: rows
 * a start has locked are skipped, a start that comes after the lock waits for the DELETE and then
 * inserts a fresh row (ON CONFLICT sees the row gone), and the DELETE checks the counts again on
 * the row's latest version, so a row a start took in between stays.
 */
export async function pruneIdleConcurrencyKeys(
  prisma: Pick<PrismaClient, "$executeRaw">,
  before: Date,
  limits: { batch: number; batches: number } = {
    batch: CONCURRENCY_KEY_PRUNE_BATCH,
    batches: CONCURRENCY_KEY_PRUNE_BATCHES_PER_PASS,
  },
): Promise<number> {
  const idle = Prisma.sql`c.held = 0 AND c.gated = 0 AND c.touched_at < ${before}
    AND NOT EXISTS (SELECT 1 FROM concurrency_slots s WHERE s.flow_id = c.flow_id AND s.key_hash = c.key_hash)`;
  let pruned = 0;
  for (let pass = 0; pass < limits.batches; pass++) {
    // The picks are materialized: a LIMIT inside `IN (…)` may be evaluated more than once by the
    // plan, deleting more than a batch.
    const count = await prisma.$executeRaw`
      WITH picked AS MATERIALIZED (
        SELECT c.flow_id, c.key_hash FROM concurrency_keys c WHERE ${idle}
        LIMIT ${limits.batch} FOR UPDATE SKIP LOCKED
      )
      DELETE FROM concurrency_keys c USING picked p
      WHERE c.flow_id = p.flow_id AND c.key_hash = p.key_hash AND ${idle}`;
    pruned += count;
    if (count < limits.batch) break;
  }
  return pruned;
}
