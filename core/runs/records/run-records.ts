// A run's record: its row as statements read it, the data of its events, and its start as each
// starter records it (the worker's in a transaction of its own, the API's checked against its
// flow in one statement). Its end is run-ends.ts's.
import type { Clock } from "../../../lib/clock.js";
import type { JsonSeal } from "../../../lib/crypto/sealed-json.js";
import { jsonValue, Prisma, sqlQuery, type PrismaClient } from "../../../lib/db.js";
import { emitEvent, eventRecord } from "../../../lib/events.js";
import { derivedId } from "../../../lib/ids.js";
import { isBlobRef, type FlowStatus, type RunStatus, type RunTrigger } from "../../contracts/run-flow.js";
import { takeSlotSql, type SlotAsk } from "../../engine/concurrency-slots.js";

export type RunRow = {
  id: string;
  workspaceId: string;
  flowId: string;
  flowName: string;
  version: number;
  status: RunStatus;
  trigger: RunTrigger;
  output: unknown;
  error: unknown;
  retryOf: string | null;
  rerunOf: string | null;
  rerunFromNode: string | null;
  /** How it was rerun (RerunRecord), sealed as stored; opened by openRunRow. */
  rerun: unknown;
  parentRunId: string | null;
  /** A test run (a replay against a draft). */
  test: boolean;
  startedAt: Date;
  finishedAt: Date | null;
  durationMs: number | null;
};

/** The columns of a RunRow, as a statement selects them from the runs table (or a CTE of its rows). */
export const RUN_ROW_COLUMNS = Prisma.sql`id, workspace_id AS "workspaceId", flow_id AS "flowId", flow_name AS "flowName", version,
             status::text AS status, trigger, output, error, retry_of AS "retryOf", rerun_of AS "rerunOf",
             rerun_from_node AS "rerunFromNode", rerun, parent_run_id AS "parentRunId", test,
             started_at AS "startedAt", finished_at AS "finishedAt", duration_ms AS "durationMs"`;

/** A row as read (or as the run's end wrote it), its output and error opened. */
export const openRunRow = (seal: JsonSeal, run: RunRow): RunRow => ({
  ...run,
  output: seal.open(run.output),
  error: seal.open(run.error),
  rerun: seal.open(run.rerun),
});

/**
 * The spec's data of run events, exactly: the one definition of its fields, filled with values
 * (runEventData) or with SQL expressions (the statement that ends a run writes its end event).
 */
export function runEventFields<
  R extends Record<"id" | "flowId" | "flowName" | "status" | "durationMs" | "startedAt" | "finishedAt", unknown>,
>(
  run: R,
): {
  run_id: R["id"];
  workflow_id: R["flowId"];
  workflow_name: R["flowName"];
  status: R["status"];
  duration_ms: R["durationMs"];
  started_at: R["startedAt"];
  finished_at: R["finishedAt"];
} {
  return {
    run_id: run.id,
    workflow_id: run.flowId,
    workflow_name: run.flowName,
    status: run.status,
    duration_ms: run.durationMs,
    started_at: run.startedAt,
    finished_at: run.finishedAt,
  };
}

export function runEventData(run: {
  id: string;
  flowId: string;
  flowName: string;
  status: string;
  durationMs: number | null;
  startedAt: Date;
  finishedAt: Date | null;
}) {
  return runEventFields({
    ...run,
    durationMs: run.durationMs ?? 0,
    startedAt: run.startedAt.toISOString(),
    finishedAt: (run.finishedAt ?? run.startedAt).toISOString(),
  });
}

/** A run as the worker starts it (core/runs/start/child-runs.ts): a schedule fire, a loop's child, an agent's flow.run, an error flow's run. */
export interface RunStart {
  id: string;
  workspaceId: string;
  flowId: string;
  flowName: string;
  version: number;
  trigger: RunTrigger;
  input: unknown;
  startedAt: Date;
  /** Its place in its run tree (core/runs/start/child-runs.ts); absent: a root. */
  parentRunId?: string | null;
  parentAgentRunId?: string | null;
  rootRunId?: string | null;
  depth?: number;
  inErrorFlow?: boolean;
  /** The task queue its workflow runs on (reconciliation is per queue). */
  taskQueue?: string;
}

/**
 * Records runs started by the worker, each with its run.started event, in the transaction `tx`,
 * once: the runs of one call are recorded together or not at all, so a repeated call (a retried
 * activity) finds them all and writes nothing. Returns how many this call recorded.
 */
export async function recordRunStarts(
  tx: Prisma.TransactionClient,
  { clock, seal }: { clock: Clock; seal: JsonSeal },
  runs: RunStart[],
): Promise<number> {
  const { count } = await tx.run.createMany({
    data: runs.map((run) => ({ ...run, status: "running" as const, input: jsonValue(seal.seal(run.input)) })),
    skipDuplicates: true,
  });
  if (count === 0) return 0;
  for (const run of runs) {
    await emitEvent(
      tx,
      clock,
      run.workspaceId,
      "run.started",
      runEventData({ ...run, status: "running", durationMs: 0, finishedAt: null }),
    );
  }
  return count;
}

/** recordRunStarts for one run: true when this call recorded it. */
export async function recordRunStart(
  tx: Prisma.TransactionClient,
  deps: { clock: Clock; seal: JsonSeal },
  run: RunStart,
): Promise<boolean> {
  return (await recordRunStarts(tx, deps, [run])) > 0;
}

/** A run the API starts: checked against its flow in the statement that records it. */
export interface CheckedRunStart extends Omit<
  RunStart,
  "parentRunId" | "parentAgentRunId" | "rootRunId" | "depth" | "inErrorFlow"
> {
  idempotencyKey: string | null;
  /** The request that used the key (null: none given, the key never replays this run). */
  requestFingerprint?: string | null;
  retryOf: string | null;
  createdBy: string | null;
  /** A rerun (or retry): the run it reruns, the node it runs from, and how (stored sealed). */
  rerun?: { of: string; fromNode: string | null; record: RerunRecord };
  /** A test run (a replay against a draft): recorded without run.started, and it ends without an event. */
  test?: boolean;
}

/** How a run was rerun, as its record keeps it (sealed like step data: it holds the overrides). */
export interface RerunRecord {
  /** Where it started: a node (rerun_from_node), the failed node (a retry), or the start. */
  from: "node" | "failed" | "start";
  /** The version the rerun ran: the original run's ("run") or the flow's latest. */
  version: "run" | "latest";
  /** The original run's version. */
  ofVersion: number;
  /** The nodes carried over from the original run: never run again. */
  carried: string[];
  /** Who reran it. */
  by: string | null;
  /** What replaced the original run's data: the trigger's input, outputs of carried nodes. */
  overrides: { input?: unknown; outputs?: Record<string, unknown> } | null;
  /** The bulk rerun that started it. */
  operationId?: string;
}

/** Another request recorded a run with the same idempotency key first. */
export class DuplicateRunKey extends Error {
  override name = "DuplicateRunKey";
}

/**
 * Records a run the API starts, with run.started, in one statement (so one commit) if its flow
 * is active (or, `inactiveToo`, inactive), still named so and (unless `anyVersion`) still at that version; and, with a
 * `quota`, only while the count its `counting` query returns (say, a hook's requests this
 * minute, this one included) is at most `max`. Large outputs a retry takes over (`reuse`) are
 * copied to the new run in the same transaction, so that it does not depend on the old run's
 * rows; their references in `reuse` are changed to the copies. Answers the flow's status (none:
 * no such flow), whether the run was recorded, and the quota's count.
 */
export async function recordCheckedRunStart(
  { prisma, clock, seal }: { prisma: PrismaClient; clock: Clock; seal: JsonSeal },
  run: CheckedRunStart,
  options: {
    anyVersion?: boolean;
    /** An inactive flow runs too (a test run of a draft); an archived one never does. */
    inactiveToo?: boolean;
    quota?: { counting: Prisma.Sql; max: number };
    reuse?: Record<string, { output: unknown }>;
    /** A concurrency slot taken in the same statement when the run is recorded (`took`). */
    slot?: SlotAsk;
  } = {},
): Promise<{ status: FlowStatus; created: boolean; count: number; took: boolean | null } | undefined> {
  const { id: runId, workspaceId, flowId, startedAt, quota } = { ...run, quota: options.quota };
  const blobCopies = Object.values(options.reuse ?? {}).flatMap((entry) => {
    if (!isBlobRef(entry.output)) return [];
    const source = entry.output.$blob;
    const copy = derivedId("blob", [runId, source], 32);
    entry.output = { $blob: copy, bytes: entry.output.bytes };
    return [
      prisma.$executeRaw`
        INSERT INTO run_blobs (id, run_id, node_id, data, bytes, created_at)
        SELECT ${copy}, ${runId}, node_id, data, bytes, ${startedAt} FROM run_blobs
        WHERE id = ${source} AND EXISTS (SELECT 1 FROM runs WHERE id = ${runId})
          AND run_id IN (SELECT id FROM runs WHERE workspace_id = ${workspaceId})`,
    ];
  });
  const event = eventRecord(
    clock,
    workspaceId,
    "run.started",
    runEventData({ ...run, status: "running", durationMs: null, finishedAt: null }),
  );
  const insert = Prisma.sql`
    WITH flow AS (
      SELECT status::text AS status, name, version FROM flows WHERE id = ${flowId} AND workspace_id = ${workspaceId}
    ), ${quota ? Prisma.sql`counted AS (${quota.counting}),` : Prisma.empty} created AS (
      INSERT INTO runs (id, workspace_id, flow_id, flow_name, version, status, trigger, input, idempotency_key, request_fingerprint, retry_of, rerun_of, rerun_from_node, rerun, test, created_by, task_queue, started_at)
      SELECT ${runId}, ${workspaceId}, ${flowId}, ${run.flowName}, ${run.version}, 'running', ${run.trigger},
             ${JSON.stringify(seal.seal(run.input))}::jsonb, ${run.idempotencyKey}, ${run.requestFingerprint ?? null}, ${run.retryOf},
             ${run.rerun?.of ?? null}, ${run.rerun?.fromNode ?? null}, ${run.rerun ? JSON.stringify(seal.seal(run.rerun.record)) : null}::jsonb,
             ${run.test ?? false}, ${run.createdBy}, ${run.taskQueue ?? null}, ${startedAt}
      FROM flow WHERE ${options.inactiveToo ? Prisma.sql`flow.status IN ('active', 'inactive')` : Prisma.sql`flow.status = 'active'`} AND flow.name = ${run.flowName}
        ${options.anyVersion ? Prisma.empty : Prisma.sql`AND flow.version = ${run.version}`}
        ${quota ? Prisma.sql`AND (SELECT count FROM counted) <= ${quota.max}` : Prisma.empty}
      RETURNING id
    ), started AS (
      INSERT INTO events (id, workspace_id, type, payload, created_at)
      SELECT ${event.id}, ${workspaceId}, ${event.type}, ${JSON.stringify(event.payload)}::jsonb, ${event.createdAt} FROM created
      ${run.test ? Prisma.sql`WHERE false` : Prisma.empty}
    )${options.slot ? Prisma.sql`, ${takeSlotSql(options.slot, Prisma.sql`SELECT 1 FROM created`)}` : Prisma.empty}
    SELECT flow.status, EXISTS (SELECT 1 FROM created) AS created,
      ${quota ? Prisma.sql`(SELECT count FROM counted)` : Prisma.sql`0`} AS count,
      ${options.slot ? Prisma.sql`(SELECT took FROM slot_counted)` : Prisma.sql`NULL::boolean`} AS took
    FROM flow`;
  type Outcome = { status: FlowStatus; created: boolean; count: number; took: boolean | null };
  try {
    if (blobCopies.length === 0) return (await sqlQuery<Outcome>(prisma, insert))[0];
    const [outcomes] = (await prisma.$transaction([prisma.$queryRaw<Outcome[]>(insert), ...blobCopies])) as [Outcome[]];
    return outcomes[0];
  } catch (error) {
    if (/runs_workspace_id_idempotency_key_key|unique constraint/i.test((error as Error).message)) {
      throw new DuplicateRunKey("a run with this idempotency key exists");
    }
    throw error;
  }
}
