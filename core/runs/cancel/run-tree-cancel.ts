// Cancelling a run cancels every run below it: the runs its loops and flow.calls started, its
// agents' runs and theirs, and the runs of error flows started for failures under it. In order:
//  1. The tree is closed below the run (it included), under the tree's lock: every run and agent
//     run there gets tree_closed_at, and the child-run starter, which takes the same lock and
//     reads its parent's mark in the transaction that would record a child, starts nothing there
//     any more (RunTreeClosed). A growing tree stops growing at once.
//  2. The run's workflow is cancelled; Temporal's cancellation reaches every child workflow below
//     it (each run waits on its children, and a cancelled parent cancels them), so the runs below
//     are not cancelled one by one. Error flows' runs have no parent workflow: each is cancelled
//     itself.
//  3. The records of the runs whose cancellation Temporal now holds end cancelled at once, in one
//     statement (endRunsCancelled) that also writes their unstarted nodes skipped, so their step
//     logs list every node from then on; their workflows wind down behind it and correct what
//     they know better (a node that ran or was stopped) as they end.
// A run whose workflow does not exist yet (its start is queued behind a backlog, or was lost) is
// left running in its closed tree: the reconciler's pass over closed trees
// (worker/reconcile-runs.ts) cancels its workflow once it exists, or ends it cancelled once
// nothing can start it any more.
import { WorkflowNotFoundError, type Client } from "@temporalio/client";
import type { Clock } from "../../../lib/clock.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../../lib/db.js";
import type { Logger } from "../../../lib/logger.js";
import type { BlobStore } from "../records/blobs.js";
import { lockRunTree } from "../start/child-runs.js";
import { ERROR_FLOW_TRIGGER } from "../start/error-flows.js";
import { runHasEnded } from "../../contracts/run-flow.js";
import { endRunsCancelled } from "../records/run-ends.js";
import { unstartedNodes } from "./unstarted-nodes.js";

/** Error flows' runs below the cancelled run whose workflows are cancelled at once, each on its own. */
const CANCELS_AT_ONCE = 50;

export interface TreeCancelDeps {
  prisma: PrismaClient;
  clock: Clock;
  temporal: Client;
  blobs: BlobStore;
  logger: Pick<Logger, "warn">;
}

export interface TreeMember {
  id: string;
  kind: "run" | "agent";
  parent: string | null;
  status: string;
  trigger: string | null;
}

/** The run or agent run being cancelled. */
export interface CancelTarget {
  id: string;
  kind: "run" | "agent";
  workspaceId: string;
}

/** `target` and every member of its tree below it, whatever their status, target first. */
function subtree(members: TreeMember[], target: TreeMember): TreeMember[] {
  const children = new Map<string, TreeMember[]>();
  for (const member of members) {
    if (!member.parent) continue;
    children.set(member.parent, [...(children.get(member.parent) ?? []), member]);
  }
  const below = [target];
  for (let i = 0; i < below.length; i++) below.push(...(children.get(below[i]!.id) ?? []));
  return below;
}

/**
 * Closes the tree below `target` (it included): marks its members closed under the tree's lock,
 * so that no run starts below it from the commit on. Answers them, target first.
 */
export async function closeRunTree(
  deps: Pick<TreeCancelDeps, "prisma" | "clock">,
  target: CancelTarget,
): Promise<TreeMember[]> {
  return deps.prisma.$transaction(async (tx) => {
    const table = target.kind === "run" ? "runs" : "agent_runs";
    const root = await lockRunTree(tx, { table, id: target.id, workspaceId: target.workspaceId });
    // Read under the lock: every run recorded in the tree has committed, and none can be recorded
    // until the marks below commit. The tree is bounded by RUN_TREE_MAX_RUNS: read whole, walked
    // in memory.
    const members = await sqlQuery<TreeMember>(
      tx,
      Prisma.sql`
        SELECT id, 'run' AS kind, COALESCE(parent_run_id, parent_agent_run_id) AS parent, status::text AS status, trigger
          FROM runs WHERE (root_run_id = ${root} OR id = ${root}) AND workspace_id = ${target.workspaceId}
        UNION ALL
        SELECT id, 'agent' AS kind, parent_run_id AS parent, status::text AS status, NULL AS trigger
          FROM agent_runs WHERE (root_run_id = ${root} OR id = ${root}) AND workspace_id = ${target.workspaceId}`,
    );
    const found = members.find((member) => member.id === target.id && member.kind === target.kind);
    if (!found) return [];
    const closing = subtree(members, found);
    const ids = (kind: TreeMember["kind"]) => closing.filter((member) => member.kind === kind).map((m) => m.id);
    const closedAt = deps.clock.now();
    for (const [kind, rows] of [
      ["run", Prisma.sql`runs`],
      ["agent", Prisma.sql`agent_runs`],
    ] as const) {
      const list = ids(kind);
      if (list.length === 0) continue;
      await tx.$executeRaw`
        UPDATE ${rows} SET tree_closed_at = ${closedAt} WHERE id = ANY(${list}::text[]) AND tree_closed_at IS NULL`;
    }
    return closing;
  });
}

/**
 * Cancels a workflow; false when it does not exist (not started yet, or never). Throws when
 * Temporal does not take the request (the tree stays closed; the reconciler's pass goes on).
 */
async function cancelWorkflow(temporal: Client, workflowId: string): Promise<boolean> {
  try {
    await temporal.workflow.getHandle(workflowId).cancel();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/**
 * Cancels `target` and every run and agent run below it (see the top of this file). Answers the
 * runs below it that this cancel ended, and whether the target's own workflow exists (when it does
 * not, the target is left running in its closed tree for the reconciler, as are error flows' runs
 * whose workflows do not exist yet).
 */
export async function cancelRunTree(
  deps: TreeCancelDeps,
  target: CancelTarget,
): Promise<{ started: boolean; endedBelow: number }> {
  const closing = await closeRunTree(deps, target);
  const started = await cancelWorkflow(deps.temporal, target.id);
  const running = closing.slice(1).filter((member) => !runHasEnded(member.status));
  // Below an error flow's run, its own children are reached through its workflow.
  const unparented = running.filter((member) => member.trigger === ERROR_FLOW_TRIGGER);
  const notStarted = new Set<string>();
  for (let i = 0; i < unparented.length; i += CANCELS_AT_ONCE) {
    await Promise.all(
      unparented.slice(i, i + CANCELS_AT_ONCE).map(async (member) => {
        const exists = await cancelWorkflow(deps.temporal, member.id).catch((error: unknown) => {
          // Temporal cannot take it now: left running in its closed tree for the reconciler's pass.
          deps.logger.warn({ err: error, run_id: member.id }, "could not cancel a run below a cancelled run");
          return false;
        });
        if (!exists) notStarted.add(member.id);
      }),
    );
  }
  // Ended here: the runs whose cancellation Temporal holds, the target's through its own workflow
  // and those below it through their parents' (a run recorded below the target whose workflow
  // has not started yet never starts but cancelled: its parent's cancellation stops the start).
  const ending = [
    ...(target.kind === "run" && started ? [{ id: target.id, error: { message: "The run was cancelled" } }] : []),
    ...(started
      ? running
          .filter((member) => member.kind === "run" && !notStarted.has(member.id))
          .map((member) => ({
            id: member.id,
            error: { message: `The run was cancelled: run ${target.id} above it was cancelled` },
          }))
      : []),
  ];
  // Their nodes that have not started are written skipped with their ends, in one statement.
  const unstarted = await unstartedNodes(
    { prisma: deps.prisma, seal: deps.blobs.seal },
    ending.map((run) => run.id),
  );
  const ended = await endRunsCancelled(
    deps,
    ending.map((run) => ({ ...run, unstarted: unstarted.get(run.id) ?? [] })),
  );
  return { started, endedBelow: ended.filter((id) => id !== target.id).length };
}
