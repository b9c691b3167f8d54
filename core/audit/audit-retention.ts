// The audit log's retention: rows older than AUDIT_RETENTION_DAYS go, a bounded batch at a time,
// from the API's housekeeping (core/maintenance.ts). The only way a row leaves the table.
import type { PrismaClient } from "../../lib/db.js";

/** Rows deleted by one statement, and statements in one pass (the next hourly pass takes the rest). */
export const AUDIT_PURGE_BATCH = 5000;
export const AUDIT_PURGE_BATCHES_PER_PASS = 40;

/** Deletes audit rows written before `before`, oldest first, in bounded batches; how many went. */
export async function purgeAuditEvents(
  prisma: PrismaClient,
  before: Date,
  limits: { batch: number; batches: number } = { batch: AUDIT_PURGE_BATCH, batches: AUDIT_PURGE_BATCHES_PER_PASS },
): Promise<number> {
  let purged = 0;
  for (let pass = 0; pass < limits.batches; pass++) {
    const count = await prisma.$executeRaw`
      DELETE FROM audit_events WHERE id IN (
        SELECT id FROM audit_events WHERE at < ${before} ORDER BY at LIMIT ${limits.batch})`;
    purged += count;
    if (count < limits.batch) break;
  }
  return purged;
}
