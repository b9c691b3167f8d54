// What a run's end does to its waits (the waits table is the waits' room; the end of a run is
// this room's, so the statement that ends a run closes them).
import { Prisma } from "../../lib/db.js";

/**
 * A common table expression for the statement that ends a run: its pending waits close as
 * cancelled when `ended` (the run's update) returns its row, so no wait outlives its run.
 */
export const cancelPendingWaits = (runId: string, at: Date, ended: Prisma.Sql) => Prisma.sql`
  cancelled_waits AS (
    UPDATE waits SET status = 'cancelled', closed_at = ${at}
    WHERE run_id = ${runId} AND status = 'pending' AND EXISTS (SELECT 1 FROM ${ended})
  )`;
