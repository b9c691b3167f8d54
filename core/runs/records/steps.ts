// The step log (StepLogFn): one row per (run, node, attempt), written idempotently. An attempt's
// end only lands on a row that is still running, so a late or repeated write changes nothing.
// Outputs and errors are stored sealed. The rows' SQL is in step-rows.ts.
import type { Clock } from "../../../lib/clock.js";
import type { JsonSeal } from "../../../lib/crypto/sealed-json.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../../lib/db.js";
import type { RecordHandledFailureInput, StepRecord } from "../../contracts/run-flow.js";
import {
  closeStaleAttempts,
  json,
  stepEndSql,
  stepRowsWrite,
  successRows,
  type StepEnd,
  type StepError,
  type StepKey,
} from "./step-rows.js";

export type { StepError } from "./step-rows.js";

interface StepLogDeps {
  prisma: PrismaClient;
  clock: Clock;
  seal: JsonSeal;
}

/**
 * Records an attempt as running, closing stale earlier attempts in the same statement. A `skipped`
 * row is taken over: the cancel of its run wrote it as the node had not started (endRunsCancelled)
 * while its activity was on its way; its workflow closes it as it ends.
 */
export async function startStep(
  { prisma }: Pick<StepLogDeps, "prisma">,
  key: StepKey,
  attempt: number,
  startedAt: Date,
): Promise<void> {
  await sqlQuery(
    prisma,
    Prisma.sql`
      WITH ${closeStaleAttempts(key, attempt, startedAt)}
      INSERT INTO run_steps (run_id, node_id, attempt, type, status, started_at)
      VALUES (${key.runId}, ${key.nodeId}, ${attempt}, ${key.type}, 'running', ${startedAt})
      ON CONFLICT (run_id, node_id, attempt) DO UPDATE SET status = 'running', started_at = EXCLUDED.started_at
      WHERE run_steps.status = 'skipped'`,
  );
}

/** Writes an attempt's end in a statement (and commit) of its own. */
export async function recordStepEnd({ prisma }: Pick<StepLogDeps, "prisma">, end: StepEnd): Promise<void> {
  await sqlQuery(prisma, Prisma.sql`WITH ${end.sql} SELECT 1`);
}

/**
 * A node's failure handled per its on_error: its last attempt stays failed and gets the node's
 * output (`{ error }`), its branch and `handled` in its error, so that the step log shows the
 * failure and what the node passed on. An attempt still marked running (its worker stopped, or
 * its time ran out before it wrote its end) is closed with the failure's message; a node with no
 * row at all (it never started) gets one. Writing it again changes nothing.
 */
export async function recordHandledStep(
  { prisma, clock, seal }: StepLogDeps,
  input: RecordHandledFailureInput,
): Promise<void> {
  const sealed = (value: unknown) => json(seal.seal(value));
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
            GREATEST(0, (EXTRACT(EPOCH FROM (${now}::timestamptz - run_steps.started_at)) * 1000)::float8))
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
}

/** Completes a step that waited in the workflow (delay, loop) after its activity started it. */
export async function completeStep(
  { prisma, clock, seal }: StepLogDeps,
  key: Omit<StepKey, "type">,
  attempt: number,
  output: unknown,
): Promise<void> {
  const finishedAt = clock.now();
  await sqlQuery(
    prisma,
    Prisma.sql`
      UPDATE run_steps SET status = 'success', output = ${json(seal.seal(output))}::jsonb, finished_at = ${finishedAt},
        duration_ms = GREATEST(0, (EXTRACT(EPOCH FROM (${finishedAt}::timestamptz - started_at)) * 1000)::float8)
      WHERE run_id = ${key.runId} AND node_id = ${key.nodeId} AND attempt = ${attempt} AND status = 'running'`,
  );
}

/**
 * Writes of attempts' ends that nobody waits for, by run. A write that fails is not retried here:
 * whoever ends the run keeps the record and writes it again if its row is missing.
 */
export class LaterStepWrites {
  readonly #writes = new Map<string, Set<Promise<void>>>();
  readonly #record: (end: StepEnd) => Promise<void>;

  constructor(record: (end: StepEnd) => Promise<void>) {
    this.#record = record;
  }

  add(end: StepEnd): void {
    const writes = this.#writes.get(end.runId) ?? new Set();
    this.#writes.set(end.runId, writes);
    // Sent once the caller's answer is on its way (after the promise jobs that carry it).
    const write: Promise<void> = new Promise((resolve) => setImmediate(resolve))
      .then(() => this.#record(end))
      .catch(() => undefined)
      .finally(() => {
        writes.delete(write);
        if (writes.size === 0 && this.#writes.get(end.runId) === writes) this.#writes.delete(end.runId);
      });
    writes.add(write);
  }

  /** Resolves once this process's later writes for the run have landed (or failed). */
  async settled(runId: string): Promise<void> {
    await Promise.all(this.#writes.get(runId) ?? []);
  }
}

/** The step log's operations, bound to their clients; see each function. */
export function createStepStore(deps: StepLogDeps) {
  const record = (end: StepEnd) => recordStepEnd(deps, end);
  const later = new LaterStepWrites(record);
  return {
    start: (key: StepKey, attempt: number, startedAt: Date) => startStep(deps, key, attempt, startedAt),
    /** A successful attempt's end: written by `record`, or with the run's end (finalizeRunRecord). */
    success: (key: StepKey, attempt: number, startedAt: Date, output: unknown, branch?: string) =>
      stepEndSql(deps, key, attempt, startedAt, { status: "success", output, branch }),
    /** Successes of local nodes the workflow kept, as one write (see NodeActivityInput.carried). */
    successes: (runId: string, records: StepRecord[]): StepEnd => ({
      runId,
      finishedAt: deps.clock.now(),
      sql: stepRowsWrite("kept_steps", runId, successRows(records), deps.seal),
    }),
    record,
    /** Writes an attempt's end without the caller waiting for it. */
    recordLater: (end: StepEnd) => later.add(end),
    settled: (runId: string) => later.settled(runId),
    fail: (key: StepKey, attempt: number, startedAt: Date, error: StepError) =>
      record(stepEndSql(deps, key, attempt, startedAt, { status: "failed", error })),
    handled: (input: RecordHandledFailureInput) => recordHandledStep(deps, input),
    complete: (key: Omit<StepKey, "type">, attempt: number, output: unknown) =>
      completeStep(deps, key, attempt, output),
  };
}
