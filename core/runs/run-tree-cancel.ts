// Cancelling a run cancels every run below it: the runs its loops and flow.calls started, its
// agents' runs and theirs, and the runs of error flows started for failures under it. Temporal
// cancels a workflow's child workflows with it; this pass reaches the rest (error flows' runs,
// which no workflow waits on, and runs recorded whose workflow never started) and makes sure of
// the others, whatever the depth.
import { WorkflowNotFoundError, type Client } from "@temporalio/client";
import type { Clock } from "../../lib/clock.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import type { Logger } from "../../lib/logger.js";
import type { BlobStore } from "./blobs.js";
import { finalizeRunRecord } from "./run-records.js";

/** Cancels this many workflows at a time. */
const CANCELS_AT_ONCE = 20;

interface TreeMember {
  id: string;
  kind: "run" | "agent";
  parent: string | null;
  status: string;
}

/** The members of `rootId`'s tree (the root excluded) that lie below `runId`, still running. */
function runningBelow(members: TreeMember[], runId: string): TreeMember[] {
  const children = new Map<string, TreeMember[]>();
  for (const member of members) {
    if (!member.parent) continue;
    children.set(member.parent, [...(children.get(member.parent) ?? []), member]);
  }
  const below: TreeMember[] = [];
  const queue = [runId];
  for (let i = 0; i < queue.length; i++) {
    for (const child of children.get(queue[i]!) ?? []) {
      below.push(child);
      queue.push(child.id);
    }
  }
  return below.filter((member) => member.status === "running");
}

/**
 * Cancels the workflows of the runs and agent runs below run `runId` that still run; a run
 * recorded whose workflow never started ends cancelled here. Answers how many it cancelled.
 */
export async function cancelRunsBelow(
  deps: { prisma: PrismaClient; clock: Clock; temporal: Client; blobs: BlobStore; logger: Pick<Logger, "warn"> },
  run: { id: string; workspaceId: string; rootRunId: string | null },
): Promise<number> {
  const root = run.rootRunId ?? run.id;
  // The tree is bounded by RUN_TREE_MAX_RUNS: read whole, walked in memory.
  const members = await sqlQuery<TreeMember>(
    deps.prisma,
    Prisma.sql`
      SELECT id, 'run' AS kind, COALESCE(parent_run_id, parent_agent_run_id) AS parent, status::text AS status
        FROM runs WHERE root_run_id = ${root} AND workspace_id = ${run.workspaceId}
      UNION ALL
      SELECT id, 'agent' AS kind, parent_run_id AS parent, status::text AS status
        FROM agent_runs WHERE root_run_id = ${root} AND workspace_id = ${run.workspaceId}`,
  );
  const below = runningBelow(members, run.id);
  for (let i = 0; i < below.length; i += CANCELS_AT_ONCE) {
    await Promise.all(below.slice(i, i + CANCELS_AT_ONCE).map((member) => cancelMember(deps, member)));
  }
  return below.length;
}

async function cancelMember(
  deps: { prisma: PrismaClient; clock: Clock; temporal: Client; blobs: BlobStore; logger: Pick<Logger, "warn"> },
  member: TreeMember,
): Promise<void> {
  try {
    await deps.temporal.workflow.getHandle(member.id).cancel();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError && member.kind === "run") {
      const end = { runId: member.id, status: "cancelled" as const, skipped: [], reused: [] };
      await finalizeRunRecord(deps, { ...end, error: { message: "Not run: a run above it was cancelled first" } });
      return;
    }
    // Closed meanwhile, or Temporal unreachable: its parent's cancellation reaches it (or it ended).
    deps.logger.warn({ err: error, run_id: member.id }, "could not cancel a run below a cancelled run");
  }
}
