import type { Clock } from "../../lib/clock.js";
import { jsonColumn, jsonValue, Prisma, type PrismaClient } from "../../lib/db.js";
import { emitEvent } from "../../lib/events.js";
import { newId } from "../../lib/ids.js";
import type { FinalizeRunInput } from "../contracts/run-flow.js";
import type { BlobStore } from "./blobs.js";

/** The spec's data of run events, exactly. */
export function runEventData(run: {
  id: string;
  flowId: string;
  flowName: string;
  status: string;
  durationMs: number | null;
  startedAt: Date;
  finishedAt: Date | null;
}) {
  return {
    run_id: run.id,
    workflow_id: run.flowId,
    workflow_name: run.flowName,
    status: run.status,
    duration_ms: run.durationMs ?? 0,
    started_at: run.startedAt.toISOString(),
    finished_at: (run.finishedAt ?? run.startedAt).toISOString(),
  };
}

/**
 * Records a run started by the worker (a schedule fire, an agent's flow.run) with run.started in
 * the same transaction `tx`, once: a repeated call with the same id writes nothing. True when
 * this call recorded it.
 */
export async function recordRunStart(
  tx: Prisma.TransactionClient,
  clock: Clock,
  run: {
    id: string;
    workspaceId: string;
    flowId: string;
    flowName: string;
    version: number;
    trigger: string;
    input: unknown;
    startedAt: Date;
  },
): Promise<boolean> {
  const { count } = await tx.run.createMany({
    data: [{ ...run, status: "running", input: jsonValue(run.input) }],
    skipDuplicates: true,
  });
  if (count === 0) return false;
  await emitEvent(
    tx,
    clock,
    run.workspaceId,
    "run.started",
    runEventData({ ...run, status: "running", durationMs: 0, finishedAt: null }),
  );
  return true;
}

/**
 * Ends a run exactly once: status, output, error, finish time and duration are set only while
 * the run is still running, and the end event is written by the same statement, so both happen
 * together or not at all. Step rows of skipped and reused nodes go in the same commit. Returns
 * false when the run had already ended.
 */
export async function finalizeRunRecord(
  { prisma, clock, blobs }: { prisma: PrismaClient; clock: Clock; blobs: BlobStore },
  input: FinalizeRunInput,
): Promise<boolean> {
  const output = input.output === undefined ? null : await blobs.resolve(input.output);
  const finishedAt = clock.now();
  // A cancelled run ends with run.failed carrying status "cancelled": receivers waiting for an
  // end event get one (README: "Events").
  const eventType = input.status === "success" ? "run.completed" : "run.failed";
  const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const durationSql = Prisma.sql`GREATEST(0, (EXTRACT(EPOCH FROM (${finishedAt}::timestamptz - started_at)) * 1000)::int)`;
  const end = prisma.$queryRaw<Array<{ id: string }>>`
    WITH ended AS (
      UPDATE runs SET status = ${input.status}::"RunStatus", output = ${JSON.stringify(output)}::jsonb,
        error = ${input.error ? JSON.stringify(input.error) : null}::jsonb, finished_at = ${finishedAt},
        duration_ms = ${durationSql}
      WHERE id = ${input.runId} AND status = 'running'
      RETURNING id, workspace_id, flow_id, flow_name, started_at, duration_ms
    )
    INSERT INTO events (id, workspace_id, type, payload, created_at)
    SELECT ${newId("evt")}, workspace_id, ${eventType}, jsonb_build_object(
      'event', ${eventType}::text, 'timestamp', ${finishedAt.toISOString()}::text, 'workspace_id', workspace_id,
      'data', jsonb_build_object('run_id', id, 'workflow_id', flow_id, 'workflow_name', flow_name,
        'status', ${input.status}::text, 'duration_ms', duration_ms, 'started_at', ${Prisma.raw(iso("started_at"))},
        'finished_at', ${finishedAt.toISOString()}::text)), ${finishedAt}
    FROM ended
    RETURNING id`;

  const steps = [
    ...input.skipped.map((node) => ({
      runId: input.runId,
      nodeId: node.nodeId,
      attempt: 1,
      type: node.type,
      status: "skipped" as const,
    })),
    ...input.reused.map((node) => ({
      runId: input.runId,
      nodeId: node.nodeId,
      attempt: 1,
      type: node.type,
      status: "success" as const,
      branch: node.branch,
      output: jsonColumn(node.output),
      startedAt: finishedAt,
      finishedAt,
      durationMs: 0,
    })),
  ];
  const writes = [
    ...(steps.length > 0 ? [prisma.runStep.createMany({ data: steps, skipDuplicates: true })] : []),
    ...(input.status === "success"
      ? []
      : [
          prisma.runStep.updateMany({
            where: { runId: input.runId, status: "running" },
            data: {
              status: "failed",
              finishedAt,
              error: {
                message: `the run was ${input.status === "cancelled" ? "cancelled" : "stopped"} while this step ran`,
              },
            },
          }),
        ]),
  ];
  const results = writes.length === 0 ? [await end] : await prisma.$transaction([...writes, end]);
  return (results.at(-1) as Array<{ id: string }>).length > 0;
}
