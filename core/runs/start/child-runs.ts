// The one way the worker starts runs of its own: a loop's items and a flow.call's run, an agent's
// flow.run, an error flow's run, a schedule's fire. It pins the flow's version, places the runs
// in their run tree (the run or agent run that starts them, its root, their depth), refuses a
// start that would take the tree past its limits, and records the runs with their run.started
// events, once: a repeated call (a retried activity) finds them and answers them as recorded.
// The workflow then runs each as a child (worker/workflows/child-run.ts), or the dispatcher
// starts it (error flows). The API's starts (runs of their own tree) go through run-starter.ts.
import type { Clock } from "../../../lib/clock.js";
import type { Config } from "../../../lib/config.js";
import type { JsonSeal } from "../../../lib/crypto/sealed-json.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../../lib/db.js";
import { runHasEnded, UNENDED_RUN_STATUSES, type RunFlowInput, type RunTrigger } from "../../contracts/run-flow.js";
import { DomainError } from "../../errors.js";
import type { NodeRegistry } from "../../nodes/registry.js";
import type { BlobStore } from "../records/blobs.js";
import { finalizeRunRecord } from "../records/run-ends.js";
import { recordRunStarts } from "../records/run-records.js";
import { fallbackPriority } from "../../flows/priority-template.js";
import { pinFlow, type PinnedFlow } from "./pinned-flow.js";
import { runFlowInput } from "./workflow-start.js";

/** What starts the runs: a run (a loop, a flow.call, a failure for its error flow), an agent run, or nothing (a schedule's fire: roots). */
export type RunParent = { runId: string; relation: "child" | "error_flow" } | { agentRunId: string };

export interface RunsToStart {
  workspaceId: string;
  flowId: string;
  trigger: RunTrigger;
  /** Absent: the runs are roots of trees of their own. */
  parent?: RunParent;
  /** The runs' ids (derived from what starts them, so a repeat finds them) and inputs. */
  runs: Array<{ id: string; input: unknown }>;
  /** The task queue their workflows run on. */
  taskQueue?: string;
  /** When the runs are recorded; now when absent. */
  startedAt?: Date;
  /** Refuses a flow that these runs cannot start, by throwing (a fire of a flow no longer scheduled). */
  check?: (flow: PinnedFlow) => void;
}

export interface ChildRunsDeps {
  clock: Clock;
  seal: JsonSeal;
  nodes: NodeRegistry;
  limits: Pick<Config, "RUN_TREE_MAX_DEPTH" | "RUN_TREE_MAX_RUNS">;
  /** Told of a run served at the default priority because its flow's template gave none. */
  warn?: (message: string, fields: Record<string, string>) => void;
}

export interface StartedChildRuns {
  flow: PinnedFlow;
  /**
   * The runs, with their status ("running" unless a repeat finds one ended) and their priority
   * (the flow's template rendered over their input, the default when it gives none).
   */
  runs: Array<{ id: string; input: unknown; startedAt: Date; status: string; priority: number }>;
  /** How many this call recorded: 0 when a repeat found them recorded. */
  recorded: number;
}

/** A start the run tree's limits refuse: never retried, the next attempt would meet it too. */
export class RunTreeLimit extends DomainError {
  override name = "RunTreeLimit";
  constructor(message: string) {
    super("conflict", "run_tree_limit", message);
  }
}

/** The runs' parent has ended (cancelled meanwhile): its children are not started. */
export class ParentRunEnded extends DomainError {
  override name = "ParentRunEnded";
  constructor(status: string) {
    super("conflict", "parent_run_ended", `The run that starts it has ended (${status})`);
  }
}

/**
 * The runs' parent, or a run above it, was cancelled: its tree is closed below it
 * (core/runs/cancel/run-tree-cancel.ts) and no run starts there any more. The node that asked ends
 * cancelled, as its run does.
 */
export class RunTreeClosed extends DomainError {
  override name = "RunTreeClosed";
  constructor(parentId: string) {
    super("conflict", "run_tree_closed", `Not started: run ${parentId} or a run above it was cancelled`);
  }
}

/** Where new runs sit in their tree (the columns of runs and agent_runs). */
export interface RunTreePlacement {
  parentRunId: string | null;
  parentAgentRunId: string | null;
  rootRunId: string | null;
  depth: number;
  inErrorFlow: boolean;
}

interface Recorded {
  id: string;
  flow_id: string;
  flow_name: string;
  version: number;
  status: string;
  input: unknown;
  started_at: Date;
}

/**
 * Records the runs of `request` (all or none) in `tx` and answers them with their pinned flow;
 * a repeat answers those recorded, at the version they pinned. FlowNotFound, FlowInactive and
 * InvalidPlan when the flow cannot start; RunTreeLimit and ParentRunEnded as their names say.
 */
export async function startChildRuns(
  tx: Prisma.TransactionClient,
  deps: ChildRunsDeps,
  request: RunsToStart,
): Promise<StartedChildRuns> {
  const ids = request.runs.map((run) => run.id);
  const recorded =
    ids.length === 0
      ? []
      : await sqlQuery<Recorded>(
          tx,
          Prisma.sql`
            SELECT id, flow_id, flow_name, version, status::text AS status, input, started_at FROM runs
            WHERE id IN (${Prisma.join(ids)}) AND workspace_id = ${request.workspaceId}`,
        );
  if (recorded.length > 0) return answerRecorded(tx, deps, request, recorded);

  const flow = await pinFlow(tx, deps.nodes, request);
  request.check?.(flow);
  const placement = await placeInRunTree(tx, deps, { ...request, adding: request.runs.length });
  const startedAt = request.startedAt ?? deps.clock.now();
  const count = await recordRunStarts(
    tx,
    deps,
    request.runs.map((run) => ({
      ...run,
      ...placement,
      startedAt,
      workspaceId: request.workspaceId,
      flowId: flow.id,
      flowName: flow.name,
      version: flow.version,
      trigger: request.trigger,
      taskQueue: request.taskQueue,
    })),
  );
  const runs = request.runs.map((run) => ({ ...run, startedAt, status: "running" }));
  return { flow, runs: withPriorities(deps, flow, runs), recorded: count };
}

/** The runs with their priority: no caller to refuse, so a template that gives none is the default, logged. */
function withPriorities<T extends { id: string; input: unknown }>(
  deps: Pick<ChildRunsDeps, "warn">,
  flow: PinnedFlow,
  runs: T[],
): Array<T & { priority: number }> {
  return runs.map((run) => ({
    ...run,
    priority: fallbackPriority(flow.definition, run.input, (message) =>
      deps.warn?.(message, { run_id: run.id, flow_id: flow.id }),
    ),
  }));
}

/** The runs a first call recorded, at the version they pinned, whatever the flow's state now. */
async function answerRecorded(
  tx: Prisma.TransactionClient,
  deps: ChildRunsDeps,
  request: RunsToStart,
  recorded: Recorded[],
): Promise<StartedChildRuns> {
  const first = recorded[0]!;
  const flow = await pinFlow(
    tx,
    deps.nodes,
    { workspaceId: request.workspaceId, flowId: first.flow_id, version: first.version },
    { active: false },
  );
  const byId = new Map(recorded.map((run) => [run.id, run]));
  const runs = request.runs.flatMap((run) => {
    const found = byId.get(run.id);
    return found
      ? [{ id: run.id, input: deps.seal.open(found.input), startedAt: found.started_at, status: found.status }]
      : [];
  });
  return { flow: { ...flow, name: first.flow_name }, runs: withPriorities(deps, flow, runs), recorded: 0 };
}

/**
 * Takes the lock of `parentId`'s run tree (its root's), held until the transaction ends: the
 * starts in one tree, and a cancel closing it (core/runs/cancel/run-tree-cancel.ts), take their turns.
 * Answers the root's id. The lock is taken before any row lock, as the cancel takes it.
 */
export async function lockRunTree(
  tx: Prisma.TransactionClient,
  parent: { table: "runs" | "agent_runs"; id: string; workspaceId: string },
): Promise<string> {
  // A run's root never changes: read without a lock.
  const [row] = await sqlQuery<{ root_run_id: string | null }>(
    tx,
    Prisma.sql`SELECT root_run_id FROM ${Prisma.raw(parent.table)} WHERE id = ${parent.id} AND workspace_id = ${parent.workspaceId}`,
  );
  const rootRunId = row?.root_run_id ?? parent.id;
  await sqlQuery(tx, Prisma.sql`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtext(${rootRunId}))) lock`);
  return rootRunId;
}

/**
 * The place of `adding` new runs (or of an agent run: 0) under their parent: its root and depth
 * plus one, within the workspace's limits (its settings, at most the server's). The tree's count
 * and whether a cancel closed it are read under the lock of its root (lockRunTree), so that
 * concurrent starts in one tree cannot pass the limit together, and no start records a run
 * after a cancel closed the tree above it (RunTreeClosed).
 */
export async function placeInRunTree(
  tx: Prisma.TransactionClient,
  deps: Pick<ChildRunsDeps, "limits">,
  request: { workspaceId: string; parent?: RunParent; adding: number },
): Promise<RunTreePlacement> {
  const { parent } = request;
  if (!parent) return { parentRunId: null, parentAgentRunId: null, rootRunId: null, depth: 0, inErrorFlow: false };
  const parentId = "runId" in parent ? parent.runId : parent.agentRunId;
  const table = "runId" in parent ? "runs" : "agent_runs";
  const rootRunId = await lockRunTree(tx, { table, id: parentId, workspaceId: request.workspaceId });
  // Shared-locked until this start commits: the parent's end waits for it, so the children it
  // records are there for the end to close (see cancelChildRuns), or the end came first.
  const [row] = await sqlQuery<{
    status: string;
    depth: number;
    in_error_flow: boolean;
    tree_closed_at: Date | null;
  }>(
    tx,
    Prisma.sql`SELECT status::text AS status, depth, in_error_flow, tree_closed_at FROM ${Prisma.raw(table)}
      WHERE id = ${parentId} AND workspace_id = ${request.workspaceId} FOR SHARE`,
  );
  const [settings] = await sqlQuery<{ max_depth: number | null; max_runs: number | null }>(
    tx,
    Prisma.sql`SELECT run_tree_max_depth AS max_depth, run_tree_max_runs AS max_runs FROM workspaces
      WHERE id = ${request.workspaceId}`,
  );
  const errorFlow = "relation" in parent && parent.relation === "error_flow";
  // A cancel closed the tree at the parent or above it: nothing more starts there, error flows included.
  if (row?.tree_closed_at) throw new RunTreeClosed(parentId);
  // An error flow's run starts after its failed run ended; a child only while its parent runs.
  if (row?.status && runHasEnded(row.status) && !errorFlow) throw new ParentRunEnded(row.status);
  const depth = (row?.depth ?? 0) + 1;
  const maxDepth = Math.min(settings?.max_depth ?? Infinity, deps.limits.RUN_TREE_MAX_DEPTH);
  if (depth > maxDepth) {
    throw new RunTreeLimit(
      `The run tree of run ${rootRunId} is at its depth limit of ${maxDepth} (run_tree_max_depth): ` +
        `a run of this flow would start ${depth} levels below its root. A flow that starts itself again ` +
        `(through flow.call, loop, an agent or its error flow) never ends: stop the recursion with a condition`,
    );
  }
  const [tree] = await sqlQuery<{ count: number }>(
    tx,
    Prisma.sql`SELECT count(*)::int AS count FROM runs WHERE root_run_id = ${rootRunId}`,
  );
  const count = tree?.count ?? 0;
  const maxRuns = Math.min(settings?.max_runs ?? Infinity, deps.limits.RUN_TREE_MAX_RUNS);
  if (count + request.adding > maxRuns) {
    throw new RunTreeLimit(
      `The run tree of run ${rootRunId} holds ${count} runs; ${request.adding} more would pass its limit ` +
        `of ${maxRuns} (run_tree_max_runs)`,
    );
  }
  return {
    parentRunId: "runId" in parent ? parent.runId : null,
    parentAgentRunId: "agentRunId" in parent ? parent.agentRunId : null,
    rootRunId,
    depth,
    inErrorFlow: errorFlow || (row?.in_error_flow ?? false),
  };
}

/** The workflow input of one run that startChildRuns answered. */
export function childRunInput(started: StartedChildRuns, index = 0): RunFlowInput {
  return runFlowInput(started.flow, started.runs[index]!);
}

/**
 * Ends as cancelled the child runs of `parentRunId` still recorded running: with `runIds`, those
 * (a loop's items it never started once an item failed or the run was cancelled); without, every
 * child left so when the parent ended other than in success (recorded by an attempt that raced the
 * parent's end, or whose workflow the parent's close terminated). Error flows' runs are not its
 * children in this sense (they start after it ended) and are left alone. Returns how many ended here.
 */
export async function cancelChildRuns(
  deps: { prisma: PrismaClient; clock: Clock; blobs: BlobStore },
  parentRunId: string,
  reason: string,
  runIds?: string[],
): Promise<number> {
  const left = await deps.prisma.run.findMany({
    where: {
      parentRunId,
      status: { in: [...UNENDED_RUN_STATUSES] },
      trigger: { not: "error_flow" satisfies RunTrigger },
      ...(runIds ? { id: { in: runIds } } : {}),
    },
    select: { id: true },
  });
  let ended = 0;
  for (const { id } of left) {
    const end = { runId: id, status: "cancelled" as const, error: { message: reason }, skipped: [], reused: [] };
    if (await finalizeRunRecord(deps, end)) ended++;
  }
  return ended;
}
