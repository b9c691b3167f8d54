// A run's end, once: the one statement that ends a run (its status, output, error, end event,
// the step rows its end writes, its pending waits closed), and the one that ends a cancelled
// tree's runs together.
import type { Clock } from "../../../lib/clock.js";
import type { JsonSeal } from "../../../lib/crypto/sealed-json.js";
import { jsonObjectSql, Prisma, sqlQuery, type PrismaClient } from "../../../lib/db.js";
import { eventEnvelope } from "../../../lib/events.js";
import { newId } from "../../../lib/ids.js";
import { runEndedNotice } from "../../../lib/run-end-notices.js";
import type { FinalizeRunInput, RunError } from "../../contracts/run-flow.js";
import { freeSlotsSql } from "../../engine/concurrency-slots.js";
import type { BlobStore } from "./blobs.js";
import { RUN_ROW_COLUMNS, runEventFields, type RunRow } from "./run-records.js";
import { stepRowsWrite, successRows, type StepEnd, type StepRow } from "./step-rows.js";

/** How a run ends besides its columns (see finalizeRunRecord). */
export interface FinalizeOptions {
  stepEnd?: StepEnd;
  written?: Array<{ nodeId: string; attempt: number }>;
  /** Frees the run's idempotency key as it ends (a run that never started: the key may start one). */
  releaseKey?: boolean;
  /**
   * Only if nothing has tried to start its workflow since then (neither its first start nor a
   * repeat with its key): a run found never started is not ended under a repeat starting it.
   */
  startUntriedSince?: Date;
}

/**
 * Ends a run exactly once, in one statement: status, output, error, finish time and duration are
 * set only while the run is still running, with the end event, the step rows of skipped and
 * reused nodes and of successes whose rows may be missing (`succeeded`), and `stepEnd` (the last
 * step's end, when that step ends the run), so that all of it happens together or not at all.
 * With `written`, the run ends only if those successful attempts have their rows. The run's pending
 * waits close as cancelled with it. Returns false
 * when the run did not end here (it had ended already, or a `written` row is missing).
 */
export async function finalizeRunRecord(
  deps: { prisma: PrismaClient; clock: Clock; blobs: BlobStore },
  input: FinalizeRunInput,
  options: FinalizeOptions = {},
): Promise<boolean> {
  return (await endRunRecord(deps, input, options)) !== undefined;
}

/**
 * finalizeRunRecord, answering the run's record as its end wrote it (output and error sealed, as
 * a read finds them), or undefined when the run did not end here.
 */
export async function endRunRecord(
  { prisma, clock, blobs }: { prisma: PrismaClient; clock: Clock; blobs: BlobStore },
  input: FinalizeRunInput,
  options: FinalizeOptions = {},
): Promise<RunRow | undefined> {
  const output = input.output === undefined ? null : await blobs.resolve(input.output);
  const finishedAt = clock.now();
  // A cancelled run ends with run.failed carrying status "cancelled": receivers waiting for an
  // end event get one (README: "Events").
  const eventType = input.status === "success" ? "run.completed" : "run.failed";
  const succeeded = successRows(input.succeeded ?? []);
  const recordedSteps = [...endStepRows(input, finishedAt), ...succeeded];
  const recordSteps =
    recordedSteps.length === 0
      ? Prisma.empty
      : Prisma.sql`,
    ${stepRowsWrite("recorded_steps", input.runId, recordedSteps, blobs.seal)}`;
  const [ended] = await sqlQuery<RunRow & { notice: string }>(
    prisma,
    Prisma.sql`
    WITH ${options.stepEnd ? Prisma.sql`${options.stepEnd.sql},` : Prisma.empty}
    ended AS (${endRunUpdate(input, output, finishedAt, blobs.seal, options)}
    )${recordSteps}${interruptedSteps(input, finishedAt, succeeded)}${unrecordedSteps(input, finishedAt)},
    ${cancelPendingWaits(input.runId, finishedAt, Prisma.sql`ended`)},
    ${freeSlotsSql(Prisma.sql`SELECT id FROM ended UNION ALL SELECT id FROM runs WHERE id = ${input.runId} AND status <> 'running'`)},
    end_event AS (
      INSERT INTO events (id, workspace_id, type, payload, created_at)
      SELECT ${newId("evt")}, workspace_id, ${eventType}, ${endEvent(eventType, input.status, finishedAt)}, ${finishedAt}
      FROM ended WHERE NOT ended.test
    )
    SELECT ${RUN_ROW_COLUMNS}, ${runEndedNotice(input.runId)} AS notice FROM ended`,
  );
  if (!ended) return undefined;
  const { notice: _notice, ...run } = ended;
  return run;
}

/** What a step that ran when its run stopped shows. */
const interruptedStepError = (status: FinalizeRunInput["status"]) =>
  JSON.stringify({ message: `the run was ${status === "cancelled" ? "cancelled" : "stopped"} while this step ran` });

/**
 * Ends the runs of `runs` still running or queued as cancelled, each with its error, in one statement (a
 * cancelled tree's runs, core/runs/cancel/run-tree-cancel.ts): with their run.failed events (status
 * cancelled), their steps still running failed, their pending waits closed and their ends
 * announced, as finalizeRunRecord ends one. Each run's `unstarted` nodes that have no row yet get
 * a `skipped` one in the same statement, so the step log lists every node once the run has
 * ended; the run's workflow, cancelled already, writes the rest as it winds down (a node it then
 * finds ran, or was stopped, replaces its `skipped` row). Answers the ids it ended.
 */
export async function endRunsCancelled(
  { prisma, clock, blobs }: { prisma: PrismaClient; clock: Clock; blobs: BlobStore },
  runs: Array<{ id: string; error: RunError; unstarted?: Array<{ nodeId: string; type: string }> }>,
): Promise<string[]> {
  if (runs.length === 0) return [];
  const finishedAt = clock.now();
  const ending = runs.map((run) => ({
    id: run.id,
    event_id: newId("evt"),
    error: blobs.seal.seal(run.error),
    unstarted: (run.unstarted ?? []).map((node) => ({ node_id: node.nodeId, type: node.type })),
  }));
  const ended = await sqlQuery<{ id: string; notice: string }>(
    prisma,
    Prisma.sql`
    WITH ending AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(ending)}::jsonb) AS e(id text, event_id text, error jsonb, unstarted jsonb)
    ), ended AS (
      UPDATE runs SET status = 'cancelled', output = ${JSON.stringify(blobs.seal.seal(null))}::jsonb, error = ending.error,
        finished_at = ${finishedAt},
        duration_ms = GREATEST(0, (EXTRACT(EPOCH FROM (${finishedAt}::timestamptz - runs.started_at)) * 1000)::float8)
      FROM ending WHERE runs.id = ending.id AND runs.status IN ('running', 'queued')
      RETURNING runs.id, runs.workspace_id, runs.flow_id, runs.flow_name, runs.started_at, runs.duration_ms, runs.test, ending.event_id
    ), interrupted_steps AS (
      UPDATE run_steps SET status = 'failed', finished_at = ${finishedAt}, error = ${interruptedStepError("cancelled")}::jsonb
      WHERE run_id IN (SELECT id FROM ended) AND status = 'running'
    ), skipped_steps AS (
      INSERT INTO run_steps (run_id, node_id, attempt, type, status)
      SELECT ended.id, n.node_id, 1, n.type, 'skipped'
      FROM ended JOIN ending ON ending.id = ended.id,
        jsonb_to_recordset(ending.unstarted) AS n(node_id text, type text)
      WHERE NOT EXISTS (SELECT 1 FROM run_steps s WHERE s.run_id = ended.id AND s.node_id = n.node_id)
      ON CONFLICT (run_id, node_id, attempt) DO NOTHING
    ), cancelled_waits AS (
      UPDATE waits SET status = 'cancelled', closed_at = ${finishedAt}
      WHERE run_id IN (SELECT id FROM ended) AND status = 'pending'
    ), end_events AS (
      INSERT INTO events (id, workspace_id, type, payload, created_at)
      SELECT event_id, workspace_id, 'run.failed', ${endEvent("run.failed", "cancelled", finishedAt)}, ${finishedAt}
      FROM ended WHERE NOT ended.test
    )
    SELECT id, ${runEndedNotice(Prisma.sql`id`)} AS notice FROM ended`,
  );
  return ended.map((run) => run.id);
}

/** The step rows the run's end writes: its skipped nodes', and those of the nodes a retry took over. */
function endStepRows(input: FinalizeRunInput, finishedAt: Date): StepRow[] {
  return [
    ...input.skipped.map((node) => ({ node_id: node.nodeId, attempt: 1, type: node.type, status: "skipped" as const })),
    ...input.reused.map((node) => ({
      node_id: node.nodeId,
      attempt: 1,
      type: node.type,
      status: "success" as const,
      branch: node.branch ?? null,
      output: node.output ?? null,
      started_at: finishedAt,
      finished_at: finishedAt,
      duration_ms: 0,
    })),
  ];
}

/** The statement's update of the run's row: only while running or queued (and the options' conditions hold). */
function endRunUpdate(
  input: FinalizeRunInput,
  output: unknown,
  finishedAt: Date,
  seal: JsonSeal,
  { written = [], releaseKey = false, startUntriedSince }: FinalizeOptions,
): Prisma.Sql {
  const durationSql = Prisma.sql`GREATEST(0, (EXTRACT(EPOCH FROM (${finishedAt}::timestamptz - started_at)) * 1000)::float8)`;
  return Prisma.sql`
      UPDATE runs SET status = ${input.status}::"RunStatus", output = ${JSON.stringify(seal.seal(output))}::jsonb,
        error = ${input.error ? JSON.stringify(seal.seal(input.error)) : null}::jsonb, finished_at = ${finishedAt},
        duration_ms = ${durationSql}${releaseKey ? Prisma.sql`, idempotency_key = NULL` : Prisma.empty}
      WHERE id = ${input.runId} AND status IN ('running', 'queued')${writtenRowsPresent(input.runId, written)}${
        startUntriedSince
          ? Prisma.sql` AND COALESCE(start_attempted_at, started_at) < ${startUntriedSince}`
          : Prisma.empty
      }
      RETURNING id, workspace_id, flow_id, flow_name, version, status, trigger, output, error, retry_of,
        rerun_of, rerun_from_node, rerun, parent_run_id, test, started_at, finished_at, duration_ms`;
}

/** The condition that those successful attempts have their rows. */
function writtenRowsPresent(runId: string, written: Array<{ nodeId: string; attempt: number }>): Prisma.Sql {
  if (written.length === 0) return Prisma.empty;
  return Prisma.sql`
      AND NOT EXISTS (
        SELECT 1 FROM jsonb_to_recordset(${JSON.stringify(written.map((w) => ({ node_id: w.nodeId, attempt: w.attempt })))}::jsonb)
          AS w(node_id text, attempt int)
        WHERE NOT EXISTS (
          SELECT 1 FROM run_steps s
          WHERE s.run_id = ${runId} AND s.node_id = w.node_id AND s.attempt = w.attempt AND s.status = 'success'))`;
}

/** A run that does not succeed fails the steps still running but those that succeeded. */
function interruptedSteps(input: FinalizeRunInput, finishedAt: Date, succeeded: StepRow[]): Prisma.Sql {
  if (input.status === "success") return Prisma.empty;
  return Prisma.sql`,
    interrupted_steps AS (
      UPDATE run_steps SET status = 'failed', finished_at = ${finishedAt}, error = ${interruptedStepError(input.status)}::jsonb
      WHERE run_id = ${input.runId} AND status = 'running'
        AND (node_id, attempt) NOT IN (
          SELECT s.node_id, s.attempt FROM jsonb_to_recordset(${JSON.stringify(succeeded)}::jsonb) AS s(node_id text, attempt int))
    )`;
}

/**
 * The nodes a cancellation stopped before anything recorded them (FinalizeRunInput.interrupted)
 * get a failed row, also over the `skipped` row the cancel wrote for them (endRunsCancelled); a
 * node with another row keeps it (a running one is closed by interruptedSteps).
 */
function unrecordedSteps(input: FinalizeRunInput, finishedAt: Date): Prisma.Sql {
  if (!input.interrupted?.length) return Prisma.empty;
  const nodes = JSON.stringify(input.interrupted.map((node) => ({ node_id: node.nodeId, type: node.type })));
  return Prisma.sql`,
    unrecorded_steps AS (
      INSERT INTO run_steps (run_id, node_id, attempt, type, status, error, started_at, finished_at, duration_ms)
      SELECT ${input.runId}, n.node_id, 1, n.type, 'failed', ${JSON.stringify({
        message: `the run was ${input.status === "cancelled" ? "cancelled" : "stopped"} before this step ended`,
      })}::jsonb, ${finishedAt}, ${finishedAt}, 0
      FROM jsonb_to_recordset(${nodes}::jsonb) AS n(node_id text, type text)
      WHERE NOT EXISTS (
        SELECT 1 FROM run_steps s WHERE s.run_id = ${input.runId} AND s.node_id = n.node_id AND s.status <> 'skipped')
      ON CONFLICT (run_id, node_id, attempt) DO UPDATE SET
        status = EXCLUDED.status, error = EXCLUDED.error, started_at = EXCLUDED.started_at,
        finished_at = EXCLUDED.finished_at, duration_ms = EXCLUDED.duration_ms
      WHERE run_steps.status = 'skipped'
    )`;
}

/** The end event, from the columns the run's update returns. */
function endEvent(eventType: string, status: FinalizeRunInput["status"], finishedAt: Date): Prisma.Sql {
  const text = (value: string) => Prisma.sql`${value}::text`;
  const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  return jsonObjectSql(
    eventEnvelope({
      event: text(eventType),
      timestamp: text(finishedAt.toISOString()),
      workspaceId: Prisma.sql`workspace_id`,
      data: jsonObjectSql(
        runEventFields({
          id: Prisma.sql`id`,
          flowId: Prisma.sql`flow_id`,
          flowName: Prisma.sql`flow_name`,
          status: text(status),
          durationMs: Prisma.sql`duration_ms`,
          startedAt: Prisma.raw(iso("started_at")),
          finishedAt: text(finishedAt.toISOString()),
        }),
      ),
    }),
  );
}

// What a run's end does to its waits (the waits table is the waits' room; the end of a run is
// this room's, so the statement that ends a run closes them).
/**
 * A common table expression for the statement that ends a run: its pending waits close as
 * cancelled when `ended` (the run's update) returns its row, so no wait outlives its run.
 */
const cancelPendingWaits = (runId: string, at: Date, ended: Prisma.Sql) => Prisma.sql`
  cancelled_waits AS (
    UPDATE waits SET status = 'cancelled', closed_at = ${at}
    WHERE run_id = ${runId} AND status = 'pending' AND EXISTS (SELECT 1 FROM ${ended})
  )`;
