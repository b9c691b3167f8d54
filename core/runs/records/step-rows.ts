// The step log's rows as SQL: an attempt's end, finished steps written in bulk, and the closing of
// earlier attempts a later one proves lost. Statements of their own or parts of a run's end.
import type { Clock } from "../../../lib/clock.js";
import type { JsonSeal } from "../../../lib/crypto/sealed-json.js";
import { Prisma } from "../../../lib/db.js";
import type { StepRecord } from "../../contracts/run-flow.js";

export interface StepKey {
  runId: string;
  nodeId: string;
  type: string;
}

export interface StepError {
  message: string;
  type?: string;
  retryable?: boolean;
  /** The node's failure was handled per its on_error: its output and branch are on the row. */
  handled?: "continue" | "branch";
}

/** An attempt's end as common table expressions: a statement of its own, or part of the run's end. */
export interface StepEnd {
  runId: string;
  finishedAt: Date;
  sql: Prisma.Sql;
}

/** A finished step's row as written in bulk: skipped, reused, or a success written late. */
export interface StepRow {
  node_id: string;
  attempt: number;
  type: string;
  status: "success" | "skipped";
  branch?: string | null;
  output?: unknown;
  started_at?: string | Date;
  finished_at?: string | Date;
  duration_ms?: number;
}

/** The rows of successes that the workflow kept (see NodeActivityResult.step). */
export const successRows = (records: StepRecord[]): StepRow[] =>
  records.map((step) => ({
    node_id: step.nodeId,
    attempt: step.attempt,
    type: step.type,
    status: "success",
    branch: step.branch ?? null,
    output: step.output ?? null,
    started_at: step.startedAt,
    finished_at: step.finishedAt,
    duration_ms: Math.max(0, Date.parse(step.finishedAt) - Date.parse(step.startedAt)),
  }));

export const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

const STALE_ATTEMPT = JSON.stringify({ message: "the attempt did not finish: its worker stopped or its time ran out" });
const LOST_SUCCESS = JSON.stringify({
  message: "the attempt succeeded, but its worker stopped before Temporal heard of it: the node ran again",
});

/** The SET of an earlier attempt a later one (started at `laterStart`) proves lost. */
const closedBy = (laterStart: Prisma.Sql) => Prisma.sql`status = 'failed',
  finished_at = CASE WHEN run_steps.status = 'running' THEN ${laterStart} ELSE run_steps.finished_at END,
  error = CASE WHEN run_steps.status = 'running' THEN ${STALE_ATTEMPT}::jsonb ELSE ${LOST_SUCCESS}::jsonb END`;

/**
 * Earlier attempts still marked running never finished (their worker stopped or their time ran
 * out), and an earlier success whose row exists never reached Temporal (its worker was killed
 * between writing the row and reporting): a later attempt proves both lost. They are closed as
 * failed by the statement that records the later attempt, so a node keeps one success.
 */
export const closeStaleAttempts = (key: StepKey, attempt: number, startedAt: Date) => Prisma.sql`
  stale_attempts AS (
    UPDATE run_steps SET ${closedBy(Prisma.sql`${startedAt}::timestamptz`)}
    WHERE run_id = ${key.runId} AND node_id = ${key.nodeId} AND attempt < ${attempt} AND status IN ('running', 'success')
  )`;

/**
 * Writes finished steps' rows in one INSERT (their outputs sealed with `seal`); a row still marked
 * running (its end never landed) is completed, a finished one never overwritten, so writing the
 * same rows again changes nothing. A `skipped` row takes a success: the cancel of a run writes
 * its nodes without rows as skipped (endRunsCancelled), and its workflow, winding down, knows
 * better which ran (kept rows, carried-over nodes).
 */
const insertStepRows = (runId: string, rows: StepRow[], seal: JsonSeal) => Prisma.sql`
  INSERT INTO run_steps (run_id, node_id, attempt, type, status, branch, output, started_at, finished_at, duration_ms)
  SELECT ${runId}, s.node_id, s.attempt, s.type, s.status::"StepStatus", s.branch, s.output, s.started_at, s.finished_at, s.duration_ms
  FROM jsonb_to_recordset(${JSON.stringify(rows.map((row) => ({ ...row, output: seal.seal(row.output ?? null) })))}::jsonb) AS s(node_id text, attempt int, type text,
    status text, branch text, output jsonb, started_at timestamptz, finished_at timestamptz, duration_ms float8)
  ON CONFLICT (run_id, node_id, attempt) DO UPDATE SET
    status = EXCLUDED.status, branch = EXCLUDED.branch, output = EXCLUDED.output,
    finished_at = EXCLUDED.finished_at, duration_ms = EXCLUDED.duration_ms
  WHERE run_steps.status = 'running' OR (run_steps.status = 'skipped' AND EXCLUDED.status = 'success')`;

/**
 * `name AS (...)`: insertStepRows as a CTE, with the earlier attempts of the successes it writes
 * closed first, as closeStaleAttempts does for one attempt: a success written late (a kept row, at
 * the run's end) still leaves its node one success.
 */
export const stepRowsWrite = (name: string, runId: string, rows: StepRow[], seal: JsonSeal) => Prisma.sql`
  ${Prisma.raw(name)}_superseded AS (
    UPDATE run_steps SET ${closedBy(Prisma.sql`s.started_at`)}
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS s(node_id text, attempt int, status text, started_at timestamptz)
    WHERE run_steps.run_id = ${runId} AND run_steps.node_id = s.node_id AND run_steps.attempt < s.attempt
      AND s.status = 'success' AND run_steps.status IN ('running', 'success')
  ),
  ${Prisma.raw(name)} AS (${insertStepRows(runId, rows, seal)})`;

/** An attempt's end: its row written (only while it is still running), earlier attempts closed. */
export function stepEndSql(
  { clock, seal }: { clock: Clock; seal: JsonSeal },
  key: StepKey,
  attempt: number,
  startedAt: Date,
  result: { status: "success" | "failed"; output?: unknown; branch?: string; error?: StepError },
): StepEnd {
  const sealed = (value: unknown) => json(seal.seal(value));
  const finishedAt = clock.now();
  const durationMs = Math.max(0, finishedAt.getTime() - startedAt.getTime());
  const sql = Prisma.sql`
    ${closeStaleAttempts(key, attempt, startedAt)},
    step_end AS (
      INSERT INTO run_steps (run_id, node_id, attempt, type, status, branch, output, error, started_at, finished_at, duration_ms)
      VALUES (${key.runId}, ${key.nodeId}, ${attempt}, ${key.type}, ${result.status}::"StepStatus", ${result.branch ?? null},
              ${sealed(result.output)}::jsonb, ${sealed(result.error)}::jsonb, ${startedAt}, ${finishedAt}, ${durationMs})
      ON CONFLICT (run_id, node_id, attempt) DO UPDATE SET
        status = EXCLUDED.status, branch = EXCLUDED.branch, output = EXCLUDED.output, error = EXCLUDED.error,
        finished_at = EXCLUDED.finished_at, duration_ms = EXCLUDED.duration_ms
      WHERE run_steps.status = 'running'
    )`;
  return { runId: key.runId, finishedAt, sql };
}
