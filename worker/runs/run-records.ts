import type { Clock } from "../../lib/clock.js";
import { jsonColumn, type PrismaClient } from "../../lib/db.js";
import { emitEvent } from "../../lib/events.js";
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
 * Ends a run exactly once: status, output, error, finish time and duration are set only while
 * the run is still running, with the step rows of skipped and reused nodes and the end event, in
 * one transaction. Returns false when the run had already ended.
 */
export async function finalizeRunRecord(
  { prisma, clock, blobs }: { prisma: PrismaClient; clock: Clock; blobs: BlobStore },
  input: FinalizeRunInput,
): Promise<boolean> {
  const output = input.output === undefined ? undefined : await blobs.resolve(input.output);
  return prisma.$transaction(async (tx) => {
    const run = await tx.run.findUnique({ where: { id: input.runId } });
    if (!run || run.status !== "running") return false;
    const finishedAt = clock.now();
    const durationMs = Math.max(0, finishedAt.getTime() - run.startedAt.getTime());
    const { count } = await tx.run.updateMany({
      where: { id: input.runId, status: "running" },
      data: {
        status: input.status,
        output: jsonColumn(output),
        error: input.error ? (input.error as object) : undefined,
        finishedAt,
        durationMs,
      },
    });
    if (count === 0) return false;

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
        startedAt: run.startedAt,
        finishedAt: run.startedAt,
        durationMs: 0,
      })),
    ];
    if (steps.length > 0) await tx.runStep.createMany({ data: steps, skipDuplicates: true });
    if (input.status !== "success") {
      await tx.runStep.updateMany({
        where: { runId: input.runId, status: "running" },
        data: {
          status: "failed",
          finishedAt,
          error: {
            message: `the run was ${input.status === "cancelled" ? "cancelled" : "stopped"} while this step ran`,
          },
        },
      });
    }
    // A cancelled run ends with run.failed carrying status "cancelled": receivers waiting for an
    // end event get one (README: "Events").
    await emitEvent(
      tx,
      clock,
      run.workspaceId,
      input.status === "success" ? "run.completed" : "run.failed",
      runEventData({ ...run, status: input.status, durationMs, finishedAt }),
    );
    return true;
  });
}
