// An operation as GET /api/operations/{id} shows it: what was asked, and its progress (items
// pending, started, skipped with their reasons; the reruns it started by their status).
import { Prisma, sqlQuery } from "../../lib/db.js";
import { driveOperation, OperationNotFound, type BulkRerunRequest, type OperationsDeps } from "./bulk-reruns.js";
import { replayResults, type ReplayResultsDeps } from "./replay-results.js";
import type { ReplayOperationRequest } from "./replays.js";

/** How many skipped items an operation's view lists (the counts cover them all). */
const SKIPPED_SHOWN = 100;
/** A running operation none of whose items has moved this long after it was asked for may never have started. */
const UNDRIVEN_AFTER_MS = 15_000;

type Progress = { items: Record<string, number>; reruns: Record<string, number>; reasons: Record<string, number> };

async function progressOf(deps: OperationsDeps, id: string): Promise<Progress> {
  const rows = await sqlQuery<{ kind: string; key: string; count: number }>(
    deps.prisma,
    Prisma.sql`
      SELECT 'item' AS kind, status AS key, count(*)::int AS count FROM operation_items WHERE operation_id = ${id} GROUP BY status
      UNION ALL
      SELECT 'rerun', r.status::text, count(*)::int FROM operation_items i JOIN runs r ON r.id = i.new_run_id
        WHERE i.operation_id = ${id} GROUP BY r.status
      UNION ALL
      SELECT 'reason', reason, count(*)::int FROM operation_items WHERE operation_id = ${id} AND status = 'skipped' GROUP BY reason`,
  );
  const progress: Progress = { items: {}, reruns: {}, reasons: {} };
  for (const row of rows) {
    const bucket = row.kind === "item" ? progress.items : row.kind === "rerun" ? progress.reruns : progress.reasons;
    bucket[row.key] = row.count;
  }
  return progress;
}

/** What the operation asked, as its view shows it: a rerun's start and version, a replay's flow and draft. */
async function requestView(
  deps: OperationsDeps & ReplayResultsDeps,
  operation: { id: string; kind: string; request: unknown },
) {
  if (operation.kind === "replay") {
    const request = operation.request as ReplayOperationRequest;
    return {
      request: { flow_id: request.flowId, version: request.version, draft: request.draft },
      replay: await replayResults(deps, operation.id, request),
    };
  }
  const request = operation.request as BulkRerunRequest;
  return {
    request: {
      from_node: typeof request.from === "object" ? request.from.node : null,
      from_failed: request.from === "failed",
      version: request.version,
    },
  };
}

/**
 * The operation of this workspace with its progress (a replay's: its results too);
 * OperationNotFound when it has none of that id.
 */
export async function getOperation(deps: OperationsDeps & ReplayResultsDeps, workspaceId: string, id: string) {
  const operation = await deps.prisma.operation.findFirst({ where: { id, workspaceId } });
  if (!operation) throw new OperationNotFound();
  const progress = await progressOf(deps, id);
  const pending = progress.items.pending ?? 0;
  if (
    operation.status === "running" &&
    pending === operation.total &&
    deps.clock.now().getTime() - operation.createdAt.getTime() > UNDRIVEN_AFTER_MS
  ) {
    // Asked for, but perhaps never started (the API stopped in between): started now, or found started.
    await driveOperation(deps, { operationId: id, workspaceId, perSecond: deps.config.BULK_RERUN_PER_SECOND });
  }
  const skipped = await deps.prisma.operationItem.findMany({
    where: { operationId: id, status: "skipped" },
    orderBy: { idx: "asc" },
    take: SKIPPED_SHOWN,
    select: { runId: true, reason: true, message: true },
  });
  const { request, replay } = await requestView(deps, operation);
  return {
    id: operation.id,
    kind: operation.kind,
    status: operation.status,
    created_at: operation.createdAt.toISOString(),
    finished_at: operation.finishedAt?.toISOString() ?? null,
    created_by: operation.createdBy,
    request,
    total: operation.total,
    counts: {
      pending,
      started: progress.items.started ?? 0,
      skipped: progress.items.skipped ?? 0,
      running: progress.reruns.running ?? 0,
      succeeded: progress.reruns.success ?? 0,
      failed: progress.reruns.failed ?? 0,
      cancelled: progress.reruns.cancelled ?? 0,
    },
    skipped_reasons: progress.reasons,
    skipped: skipped.map((item) => ({ run_id: item.runId, reason: item.reason, message: item.message })),
    ...(replay ? { replay } : {}),
  };
}
