// One pass of a bulk rerun (or of a replay against a draft: each item replayed instead), as its
// workflow's activity makes it: the next pending items, each rerun once. The rerun's idempotency key is the item's (operation and index), so a pass retried
// after a crash finds the run it started instead of starting another; a rerun the run's state
// refuses (not ended, a version that does not fit, a flow not active, a run deleted) skips the
// item with the refusal's code and words. Anything else (Temporal or the database away) fails the
// pass, which its workflow retries.
import type { Clock } from "../../lib/clock.js";
import type { RerunPass } from "../contracts/operations.js";
import { DomainError } from "../errors.js";
import { DuplicateRunKey } from "../runs/records/run-records.js";
import { rerunRun, type RerunRunDeps } from "../runs/start/rerun-run.js";
import { replayRun } from "../runs/start/replay-run.js";
import type { BulkRerunRequest } from "./bulk-reruns.js";
import type { ReplayOperationRequest } from "./replays.js";

export interface RerunPassDeps extends RerunRunDeps {
  clock: Clock;
}

/** Reruns a pass starts at once (each is a few statements and a workflow start). */
const RERUNS_AT_ONCE = 8;

/** The idempotency key of an item's rerun: one run per item, whoever retries. */
const itemKey = (operationId: string, idx: number) => `bulk-rerun:${operationId}:${idx}`;

type Settled = { newRunId: string } | { reason: string; message: string };

type PassOperation = { id: string; kind: string; workspaceId: string; createdBy: string | null; request: unknown };

/** The item's run started: a rerun, or a replay on the draft (an operation of kind `replay`). */
function startItem(deps: RerunPassDeps, operation: PassOperation, runId: string, key: string) {
  const caller = { workspaceId: operation.workspaceId, by: operation.createdBy };
  if (operation.kind === "replay") {
    const { flowId, definition } = operation.request as ReplayOperationRequest;
    return replayRun(deps, caller, runId, { flowId, definition, operationId: operation.id, idempotencyKey: key });
  }
  const { from, version } = operation.request as BulkRerunRequest;
  return rerunRun(deps, caller, runId, { from, version, operationId: operation.id, idempotencyKey: key });
}

async function rerunItem(
  deps: RerunPassDeps,
  operation: PassOperation,
  item: { idx: number; runId: string },
): Promise<Settled> {
  const key = itemKey(operation.id, item.idx);
  try {
    const run = await startItem(deps, operation, item.runId, key);
    return { newRunId: run.id };
  } catch (error) {
    if (error instanceof DuplicateRunKey) {
      const earlier = await deps.prisma.run.findUnique({
        where: { workspaceId_idempotencyKey: { workspaceId: operation.workspaceId, idempotencyKey: key } },
        select: { id: true, rerunOf: true, test: true },
      });
      // The item's own rerun (or replay: a test run, which only operations start), started by an
      // earlier try of this pass; a run that took the key otherwise (a client's Idempotency-Key
      // chosen to match) is not this item's.
      const own = operation.kind === "replay" ? earlier?.test === true : earlier?.rerunOf === item.runId;
      if (earlier && own) return { newRunId: earlier.id };
      if (earlier) {
        return { reason: "idempotency_conflict", message: "Another run holds this item's idempotency key" };
      }
    }
    if (error instanceof DomainError && error.kind !== "unavailable" && error.kind !== "too_many") {
      return { reason: error.code, message: error.message };
    }
    throw error;
  }
}

/**
 * Reruns up to `limit` pending items of the operation, in order, and answers what it settled and
 * how many are left. A cancelled or ended operation has none left.
 */
export async function rerunPass(deps: RerunPassDeps, operationId: string, limit: number): Promise<RerunPass> {
  const { prisma } = deps;
  const operation = await prisma.operation.findUnique({ where: { id: operationId } });
  if (!operation || operation.status !== "running") return { started: 0, skipped: 0, pending: 0 };
  const items = await prisma.operationItem.findMany({
    where: { operationId, status: "pending" },
    orderBy: { idx: "asc" },
    take: limit,
    select: { idx: true, runId: true },
  });
  let started = 0;
  let skipped = 0;
  const settle = async (item: { idx: number; runId: string }) => {
    const settled = await rerunItem(deps, operation, item);
    await prisma.operationItem.updateMany({
      where: { operationId, idx: item.idx, status: "pending" },
      data:
        "newRunId" in settled
          ? { status: "started", newRunId: settled.newRunId }
          : { status: "skipped", reason: settled.reason, message: settled.message },
    });
    if ("newRunId" in settled) started++;
    else skipped++;
  };
  // RERUNS_AT_ONCE lanes take the items in order; a lane's failure fails the pass (retried whole:
  // the items it settled are no longer pending, those it started are found by their keys).
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(RERUNS_AT_ONCE, items.length) }, async () => {
      while (next < items.length) await settle(items[next++]!);
    }),
  );
  const pending = await prisma.operationItem.count({ where: { operationId, status: "pending" } });
  return { started, skipped, pending };
}
