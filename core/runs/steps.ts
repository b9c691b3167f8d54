import type { Clock } from "../../lib/clock.js";
import type { JsonSeal } from "../../lib/crypto/sealed-json.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import type { RecordHandledFailureInput, StepRecord } from "../contracts/run-flow.js";

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

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

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
const closeStaleAttempts = (key: StepKey, attempt: number, startedAt: Date) => Prisma.sql`
  stale_attempts AS (
    UPDATE run_steps SET ${closedBy(Prisma.sql`${startedAt}::timestamptz`)}
    WHERE run_id = ${key.runId} AND node_id = ${key.nodeId} AND attempt < ${attempt} AND status IN ('running', 'success')
  )`;

/**
 * Writes finished steps' rows in one INSERT (their outputs sealed with `seal`); a row still marked
 * running (its end never landed) is completed, a finished one never overwritten, so writing the
 * same rows again changes nothing.
 */
export const insertStepRows = (runId: string, rows: StepRow[], seal: JsonSeal) => Prisma.sql`
  INSERT INTO run_steps (run_id, node_id, attempt, type, status, branch, output, started_at, finished_at, duration_ms)
  SELECT ${runId}, s.node_id, s.attempt, s.type, s.status::"StepStatus", s.branch, s.output, s.started_at, s.finished_at, s.duration_ms
  FROM jsonb_to_recordset(${JSON.stringify(rows.map((row) => ({ ...row, output: seal.seal(row.output ?? null) })))}::jsonb) AS s(node_id text, attempt int, type text,
    status text, branch text, output jsonb, started_at timestamptz, finished_at timestamptz, duration_ms int)
  ON CONFLICT (run_id, node_id, attempt) DO UPDATE SET
    status = EXCLUDED.status, branch = EXCLUDED.branch, output = EXCLUDED.output,
    finished_at = EXCLUDED.finished_at, duration_ms = EXCLUDED.duration_ms
  WHERE run_steps.status = 'running'`;

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

/**
 * The step log (StepLogFn): one row per (run, node, attempt), written idempotently. An attempt's
 * end only lands on a row that is still running, so a late or repeated write changes nothing.
 * Outputs and errors are stored sealed with `seal`.
 */
export function createStepStore({ prisma, clock, seal }: { prisma: PrismaClient; clock: Clock; seal: JsonSeal }) {
  const sealed = (value: unknown) => json(seal.seal(value));

  function endOf(
    key: StepKey,
    attempt: number,
    startedAt: Date,
    result: { status: "success" | "failed"; output?: unknown; branch?: string; error?: StepError },
  ): StepEnd {
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

  /** Writes an attempt's end in a statement (and commit) of its own. */
  async function record(end: StepEnd): Promise<void> {
    await sqlQuery(prisma, Prisma.sql`WITH ${end.sql} SELECT 1`);
  }

  /** Writes in flight from `recordLater`, by run. */
  const laterWrites = new Map<string, Set<Promise<void>>>();

  return {
    /** Records an attempt as running, closing stale earlier attempts in the same statement. */
    async start(key: StepKey, attempt: number, startedAt: Date): Promise<void> {
      await sqlQuery(
        prisma,
        Prisma.sql`
          WITH ${closeStaleAttempts(key, attempt, startedAt)}
          INSERT INTO run_steps (run_id, node_id, attempt, type, status, started_at)
          VALUES (${key.runId}, ${key.nodeId}, ${attempt}, ${key.type}, 'running', ${startedAt})
          ON CONFLICT (run_id, node_id, attempt) DO NOTHING`,
      );
    },
    /** A successful attempt's end: written by `record`, or with the run's end (finalizeRunRecord). */
    success: (key: StepKey, attempt: number, startedAt: Date, output: unknown, branch?: string) =>
      endOf(key, attempt, startedAt, { status: "success", output, branch }),
    /** Successes of local nodes the workflow kept, as one write (see NodeActivityInput.carried). */
    successes: (runId: string, records: StepRecord[]): StepEnd => ({
      runId,
      finishedAt: clock.now(),
      sql: stepRowsWrite("kept_steps", runId, successRows(records), seal),
    }),
    record,
    /**
     * Writes an attempt's end without the caller waiting for it. A write that fails is not
     * retried here: whoever ends the run keeps the record and writes it again if its row is missing.
     */
    recordLater(end: StepEnd): void {
      const writes = laterWrites.get(end.runId) ?? new Set();
      laterWrites.set(end.runId, writes);
      // Sent once the caller's answer is on its way (after the promise jobs that carry it).
      const write: Promise<void> = new Promise((resolve) => setImmediate(resolve))
        .then(() => record(end))
        .catch(() => undefined)
        .finally(() => {
          writes.delete(write);
          if (writes.size === 0 && laterWrites.get(end.runId) === writes) laterWrites.delete(end.runId);
        });
      writes.add(write);
    },
    /** Resolves once this process's later writes for the run have landed (or failed). */
    async settled(runId: string): Promise<void> {
      await Promise.all(laterWrites.get(runId) ?? []);
    },
    fail: (key: StepKey, attempt: number, startedAt: Date, error: StepError) =>
      record(endOf(key, attempt, startedAt, { status: "failed", error })),
    /**
     * A node's failure handled per its on_error: its last attempt stays failed and gets the
     * node's output (`{ error }`), its branch and `handled` in its error, so that the step log
     * shows the failure and what the node passed on. An attempt still marked running (its worker
     * stopped, or its time ran out before it wrote its end) is closed with the failure's message;
     * a node with no row at all (it never started) gets one. Writing it again changes nothing.
     */
    async handled(input: RecordHandledFailureInput): Promise<void> {
      const now = clock.now();
      const error = { message: input.output.error.message, type: input.output.error.code, retryable: false };
      // `handled` stays clear beside the sealed error, which it is merged into when read.
      const handled = JSON.stringify({ handled: input.onError });
      await sqlQuery(
        prisma,
        Prisma.sql`
          WITH latest AS (
            SELECT attempt, status FROM run_steps WHERE run_id = ${input.runId} AND node_id = ${input.nodeId}
            ORDER BY attempt DESC LIMIT 1
          ),
          marked AS (
            UPDATE run_steps SET status = 'failed', output = ${sealed(input.output)}::jsonb, branch = ${input.branch ?? null},
              error = (CASE WHEN run_steps.status = 'running' OR run_steps.error IS NULL THEN ${sealed(error)}::jsonb
                       ELSE run_steps.error END) || ${handled}::jsonb,
              finished_at = COALESCE(run_steps.finished_at, ${now}),
              duration_ms = COALESCE(run_steps.duration_ms,
                GREATEST(0, (EXTRACT(EPOCH FROM (${now}::timestamptz - run_steps.started_at)) * 1000)::int))
            FROM latest
            WHERE run_steps.run_id = ${input.runId} AND run_steps.node_id = ${input.nodeId}
              AND run_steps.attempt = latest.attempt AND latest.status IN ('running', 'failed')
          )
          INSERT INTO run_steps (run_id, node_id, attempt, type, status, branch, output, error, started_at, finished_at, duration_ms)
          SELECT ${input.runId}, ${input.nodeId}, 1, ${input.type}, 'failed', ${input.branch ?? null},
            ${sealed(input.output)}::jsonb, ${sealed(error)}::jsonb || ${handled}::jsonb, ${now}, ${now}, 0
          WHERE NOT EXISTS (SELECT 1 FROM latest)
          ON CONFLICT (run_id, node_id, attempt) DO NOTHING`,
      );
    },
    /** Completes a step that waited in the workflow (delay, loop) after its activity started it. */
    async complete(key: Omit<StepKey, "type">, attempt: number, output: unknown): Promise<void> {
      const finishedAt = clock.now();
      await sqlQuery(
        prisma,
        Prisma.sql`
          UPDATE run_steps SET status = 'success', output = ${sealed(output)}::jsonb, finished_at = ${finishedAt},
            duration_ms = GREATEST(0, (EXTRACT(EPOCH FROM (${finishedAt}::timestamptz - started_at)) * 1000)::int)
          WHERE run_id = ${key.runId} AND node_id = ${key.nodeId} AND attempt = ${attempt} AND status = 'running'`,
      );
    },
  };
}

export type StepStore = ReturnType<typeof createStepStore>;
