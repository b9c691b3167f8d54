// Asking for a bulk rerun (POST /api/runs/rerun): the selection (ids, or the runs list's filters)
// resolved into the operation's items in the statement that records it, then its workflow
// started (workflow id = operation id), which reruns the items at a bounded pace
// (rerun-passes.ts). An operation whose workflow never started (the process died in between) is
// started by the reconciler of its task queue (operation-reconcile.ts) or when it is read
// (operation-views.ts). With an Idempotency-Key, a repeat of the same request answers the
// operation the key recorded (a client whose connection broke asks again without a second
// operation); another request with the key is refused, as run starts do.
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from "@temporalio/client";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import { BULK_RERUN_WORKFLOW, type BulkRerunInput } from "../contracts/operations.js";
import type { RunStatus, RunTrigger } from "../contracts/run-flow.js";
import { temporalRefusal } from "../engine/temporal-start.js";
import { DomainError, domainErrorClass } from "../errors.js";
import type { RerunCaller, RerunFrom } from "../runs/start/rerun-run.js";
import { IdempotencyKeyReused } from "../runs/start/run-starter.js";

export type OperationsConfig = Pick<
  Config,
  | "BULK_RERUN_MAX_RUNS"
  | "BULK_RERUN_PER_SECOND"
  | "BULK_RERUNS_PER_WORKSPACE"
  | "REPLAY_MAX_RUNS"
  | "TEMPORAL_TASK_QUEUE"
>;

export interface OperationsDeps {
  prisma: PrismaClient;
  clock: Clock;
  temporal: Client;
  config: OperationsConfig;
}

/** The runs a bulk rerun acts on: named, or as the runs list filters them (at most BULK_RERUN_MAX_RUNS). */
export type RunSelection =
  | { ids: string[] }
  | {
      filter: {
        flowId?: string;
        status?: RunStatus;
        trigger?: RunTrigger;
        startedAfter?: Date;
        startedBefore?: Date;
      };
    };

/** What a bulk rerun asks, as its operation keeps it (`request`): each rerun's start and version, and the selection. */
export interface BulkRerunRequest {
  from: RerunFrom;
  version: "run" | "latest";
  selection: RunSelection;
}

export class SelectionTooLarge extends DomainError {
  override name = "SelectionTooLarge";
  constructor(max: number) {
    super(
      "too_large",
      "selection_too_large",
      `The selection holds more than ${max} runs (BULK_RERUN_MAX_RUNS): narrow the filters or the time window`,
      { max },
    );
  }
}

export const SelectionEmpty = domainErrorClass(
  "SelectionEmpty",
  "invalid",
  "selection_empty",
  "No run of this workspace matches the selection",
);

export class BulkRerunsBusy extends DomainError {
  override name = "BulkRerunsBusy";
  constructor(max: number) {
    super(
      "too_many",
      "bulk_reruns_busy",
      `${max} bulk reruns of this workspace are running (BULK_RERUNS_PER_WORKSPACE): wait for one to end or cancel one`,
      { retry_after: 10 },
      10,
    );
  }
}

/** The statement selecting the runs (their ids, oldest first) that a selection names in the workspace. */
function selectedRuns(workspaceId: string, selection: RunSelection, limit: number): Prisma.Sql {
  if ("ids" in selection) {
    return Prisma.sql`
      SELECT id, started_at FROM runs WHERE workspace_id = ${workspaceId} AND id = ANY(${selection.ids}::text[])
      ORDER BY started_at, id LIMIT ${limit}`;
  }
  const { flowId, status, trigger, startedAfter, startedBefore } = selection.filter;
  const conditions = [
    Prisma.sql`workspace_id = ${workspaceId}`,
    // Test runs (replays against a draft) are never rerun: the filters leave them out.
    Prisma.sql`NOT test`,
    ...(flowId ? [Prisma.sql`flow_id = ${flowId}`] : []),
    ...(status ? [Prisma.sql`status = ${status}::"RunStatus"`] : []),
    ...(trigger ? [Prisma.sql`trigger = ${trigger}`] : []),
    ...(startedAfter ? [Prisma.sql`started_at >= ${startedAfter}`] : []),
    ...(startedBefore ? [Prisma.sql`started_at < ${startedBefore}`] : []),
  ];
  return Prisma.sql`
    SELECT id, started_at FROM runs WHERE ${Prisma.join(conditions, " AND ")}
    ORDER BY started_at, id LIMIT ${limit}`;
}

/** How a filter is kept in the operation's request (JSON: instants as ISO strings). */
const storedRequest = (request: BulkRerunRequest) => JSON.stringify(request);

/** The Idempotency-Key a bulk rerun was asked with, and the request that used it. */
export interface OperationIdempotency {
  key: string;
  requestFingerprint: string;
}

type AskedOperation = { id: string; status: string; total: number; createdAt: Date; replayed: boolean };

/**
 * Records the operation with its items (one per selected run, in the order the runs started) in
 * one statement, then starts its workflow. SelectionEmpty, SelectionTooLarge, BulkRerunsBusy
 * before anything is recorded; a start Temporal does not take removes the record (503). A key
 * already used answers its operation (`replayed`) for the same request, IdempotencyKeyReused else.
 */
export async function startBulkRerun(
  deps: OperationsDeps,
  caller: RerunCaller,
  request: BulkRerunRequest,
  idempotency?: OperationIdempotency,
): Promise<AskedOperation> {
  if (idempotency) {
    const earlier = await answerOfKey(deps, caller.workspaceId, idempotency);
    if (earlier) return earlier;
  }
  try {
    return await recordAndStart(deps, caller, request, idempotency);
  } catch (error) {
    // A concurrent request with the same key recorded its operation first: answer with it.
    if (!idempotency || !/operations_workspace_id_idempotency_key_key/.test((error as Error).message)) throw error;
    const winner = await answerOfKey(deps, caller.workspaceId, idempotency);
    if (winner) return winner;
    throw error;
  }
}

/** The operation recorded under the key, for the same request (started if it never was); none when unused. */
async function answerOfKey(
  deps: OperationsDeps,
  workspaceId: string,
  { key, requestFingerprint }: OperationIdempotency,
): Promise<AskedOperation | undefined> {
  const earlier = await deps.prisma.operation.findUnique({
    where: { workspaceId_idempotencyKey: { workspaceId, idempotencyKey: key } },
  });
  if (!earlier) return undefined;
  // Another request learns nothing of the operation, not even its id.
  if (earlier.requestFingerprint !== requestFingerprint) throw new IdempotencyKeyReused();
  if (earlier.status === "running") {
    // The first request may have died between the record and the start.
    await driveOperation(deps, {
      operationId: earlier.id,
      workspaceId,
      perSecond: deps.config.BULK_RERUN_PER_SECOND,
    });
  }
  return { id: earlier.id, status: earlier.status, total: earlier.total, createdAt: earlier.createdAt, replayed: true };
}

async function recordAndStart(
  deps: OperationsDeps,
  caller: RerunCaller,
  request: BulkRerunRequest,
  idempotency: OperationIdempotency | undefined,
): Promise<AskedOperation> {
  const { id, total, createdAt } = await recordAndDriveOperation(deps, {
    workspaceId: caller.workspaceId,
    by: caller.by,
    kind: "rerun",
    request: storedRequest(request),
    selected: selectedRuns(caller.workspaceId, request.selection, deps.config.BULK_RERUN_MAX_RUNS + 1),
    max: deps.config.BULK_RERUN_MAX_RUNS,
    idempotency,
    refused: "The bulk rerun did not start",
  });
  return { id, status: "running", total, createdAt, replayed: false };
}

/**
 * Records an operation with its items (one per selected run, in the order the runs started) in one
 * statement, then starts its workflow: BulkRerunsBusy, SelectionEmpty and SelectionTooLarge (with
 * `max`) before anything is kept; a start Temporal does not take removes the record (503). What a
 * bulk rerun and a replay share.
 */
export async function recordAndDriveOperation(
  deps: OperationsDeps,
  operation: {
    workspaceId: string;
    by: string | null;
    kind: "rerun" | "replay";
    /** The request as the operation keeps it (JSON text). */
    request: string;
    /** The statement selecting the runs (id, started_at). */
    selected: Prisma.Sql;
    max?: number;
    idempotency?: OperationIdempotency;
    /** The words of the 503 when Temporal does not take the start. */
    refused: string;
  },
): Promise<{ id: string; total: number; createdAt: Date }> {
  const { prisma, clock, config } = deps;
  const { workspaceId, max, idempotency } = operation;
  const running = await prisma.operation.count({ where: { workspaceId, status: "running" } });
  if (running >= config.BULK_RERUNS_PER_WORKSPACE) throw new BulkRerunsBusy(config.BULK_RERUNS_PER_WORKSPACE);
  const id = newId("op");
  const createdAt = clock.now();
  const [recorded] = await sqlQuery<{ total: number }>(
    prisma,
    Prisma.sql`
      WITH selected AS (${operation.selected}),
      counted AS (SELECT count(*)::int AS total FROM selected),
      operation AS (
        INSERT INTO operations (id, workspace_id, kind, status, request, total, created_by, created_at, task_queue, idempotency_key, request_fingerprint)
        SELECT ${id}, ${workspaceId}, ${operation.kind}, 'running', ${operation.request}::jsonb, total, ${operation.by}, ${createdAt},
          ${config.TEMPORAL_TASK_QUEUE}, ${idempotency?.key ?? null}, ${idempotency?.requestFingerprint ?? null}
        FROM counted WHERE total >= 1 ${max === undefined ? Prisma.empty : Prisma.sql`AND total <= ${max}`}
        RETURNING id
      ), items AS (
        INSERT INTO operation_items (operation_id, idx, run_id, status)
        SELECT operation.id, (row_number() OVER (ORDER BY selected.started_at, selected.id))::int, selected.id, 'pending'
        FROM selected, operation
      )
      SELECT total FROM counted`,
  );
  const total = recorded?.total ?? 0;
  if (total === 0) throw new SelectionEmpty();
  if (max !== undefined && total > max) throw new SelectionTooLarge(max);
  try {
    await driveOperation(deps, { operationId: id, workspaceId, perSecond: config.BULK_RERUN_PER_SECOND });
  } catch (error) {
    await prisma.operation.deleteMany({ where: { id } });
    throw temporalRefusal(operation.refused, error);
  }
  return { id, total, createdAt };
}

/** Starts the operation's workflow; one already started counts as started. */
export async function driveOperation(
  deps: { temporal: Client; config: Pick<OperationsConfig, "TEMPORAL_TASK_QUEUE"> },
  input: BulkRerunInput,
) {
  try {
    await deps.temporal.workflow.start(BULK_RERUN_WORKFLOW, {
      workflowId: input.operationId,
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [input],
      staticSummary: `Bulk operation ${input.operationId}`,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

export class OperationNotRunning extends DomainError {
  override name = "OperationNotRunning";
  constructor(status: string) {
    super("conflict", "operation_not_running", `The operation is ${status}: only a running one is cancelled`);
  }
}

export const OperationNotFound = domainErrorClass(
  "OperationNotFound",
  "not_found",
  "not_found",
  "No such operation in this workspace",
);

/**
 * Cancels a running operation: its workflow stops between reruns and skips the items it had not
 * started (reason `cancelled`); the reruns it started run on. One whose workflow is gone is ended here.
 */
export async function cancelOperation(deps: OperationsDeps, workspaceId: string, id: string) {
  const operation = await deps.prisma.operation.findFirst({ where: { id, workspaceId } });
  if (!operation) throw new OperationNotFound();
  if (operation.status !== "running") throw new OperationNotRunning(operation.status);
  try {
    await deps.temporal.workflow.getHandle(id).cancel();
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError))
      throw temporalRefusal("The cancellation did not reach Temporal", error);
    await endOperationRecord(deps.prisma, deps.clock, id, "cancelled");
  }
  return { answer: { id, status: "cancelling" as const }, operation };
}

/** Ends the operation's record once: cancelled skips its pending items. */
export async function endOperationRecord(
  prisma: PrismaClient,
  clock: Clock,
  id: string,
  end: "completed" | "cancelled",
): Promise<void> {
  const finishedAt = clock.now();
  await prisma.$transaction([
    prisma.operationItem.updateMany({
      where: { operationId: id, status: "pending", operation: { status: "running" } },
      data: { status: "skipped", reason: "cancelled", message: "The bulk rerun was cancelled before this run's turn" },
    }),
    prisma.operation.updateMany({ where: { id, status: "running" }, data: { status: end, finishedAt } }),
  ]);
}
