// What a replay against a draft found, as GET /api/operations/{id} shows it: per replayed run a
// summary, and once its replay ended, per node a comparison of the replay's output with the
// recorded run's: same, changed (both outputs shown), new (no such node succeeded in the recorded
// run), failed (it failed in the replay), missing (recorded, but not in the draft or not reached),
// skipped (neither run has an output for it). Outputs are step data: opened here, never logged.
import { isDeepStrictEqual } from "node:util";
import type { JsonSeal } from "../../lib/crypto/sealed-json.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import type { BlobStore } from "../runs/records/blobs.js";
import type { ReplayOperationRequest } from "./replays.js";
import { runHasEnded } from "../contracts/run-flow.js";

export const NODE_COMPARISONS = ["same", "changed", "new", "failed", "missing", "skipped"] as const;
export type NodeComparison = (typeof NODE_COMPARISONS)[number];

export interface ReplayResultsDeps {
  prisma: PrismaClient;
  seal: JsonSeal;
  blobs: Pick<BlobStore, "resolve">;
}

export interface ReplayNodeResult {
  node_id: string;
  result: NodeComparison;
  /** A changed node's outputs: the replay's, and the recorded run's. */
  output?: unknown;
  recorded_output?: unknown;
}

export interface ReplayRunResult {
  run_id: string;
  replay_run_id: string | null;
  /** The item's state: pending, started, or skipped (reason: the refusal's code). */
  item: string;
  reason: string | null;
  /** The replay run's status (null until it started). */
  status: string | null;
  recorded_status: string | null;
  /** The replay's error message, when it did not succeed. */
  error: string | null;
  counts: Record<NodeComparison, number>;
  /** Per node, once the replay ended (empty while it runs), in the draft's order, then the recorded nodes it lacks. */
  nodes: ReplayNodeResult[];
}

type ItemRow = {
  runId: string;
  newRunId: string | null;
  item: string;
  reason: string | null;
  status: string | null;
  recordedStatus: string | null;
  error: unknown;
};
type StepRow = { runId: string; nodeId: string; status: string; output: unknown };

/** Each run's last successful output per node, and the nodes that failed in it. */
async function stepsOf(deps: ReplayResultsDeps, runIds: string[]) {
  const rows = await sqlQuery<StepRow>(
    deps.prisma,
    Prisma.sql`
      SELECT run_id AS "runId", node_id AS "nodeId", status::text AS status, output FROM run_steps
      WHERE run_id = ANY(${runIds}::text[]) AND status IN ('success', 'failed') ORDER BY attempt`,
  );
  const byRun = new Map<string, { outputs: Map<string, unknown>; failed: Set<string> }>();
  for (const row of rows) {
    const run = byRun.get(row.runId) ?? { outputs: new Map(), failed: new Set() };
    byRun.set(row.runId, run);
    if (row.status === "success") run.outputs.set(row.nodeId, deps.seal.open(row.output));
    else run.failed.add(row.nodeId);
  }
  return (runId: string) => byRun.get(runId) ?? { outputs: new Map<string, unknown>(), failed: new Set<string>() };
}

/** Both outputs the same, large ones compared by what they hold (a replay's copy has another reference). */
async function sameOutput(deps: ReplayResultsDeps, a: unknown, b: unknown): Promise<boolean> {
  if (isDeepStrictEqual(a, b)) return true;
  const [left, right] = await Promise.all([deps.blobs.resolve(a), deps.blobs.resolve(b)]);
  return isDeepStrictEqual(left, right);
}

/** The per-run results of the replay operation `operationId`, in the items' order. */
export async function replayResults(
  deps: ReplayResultsDeps,
  operationId: string,
  request: ReplayOperationRequest,
): Promise<ReplayRunResult[]> {
  const items = await sqlQuery<ItemRow>(
    deps.prisma,
    Prisma.sql`
      SELECT i.run_id AS "runId", i.new_run_id AS "newRunId", i.status AS item, i.reason,
        r.status::text AS status, o.status::text AS "recordedStatus", r.error
      FROM operation_items i LEFT JOIN runs r ON r.id = i.new_run_id LEFT JOIN runs o ON o.id = i.run_id
      WHERE i.operation_id = ${operationId} ORDER BY i.idx`,
  );
  const ended = items.filter((item) => item.newRunId && item.status && runHasEnded(item.status));
  const steps = await stepsOf(
    deps,
    ended.flatMap((item) => [item.runId, item.newRunId!]),
  );
  const draftNodes = request.definition.nodes.map((node) => node.id);
  return Promise.all(
    items.map(async (item): Promise<ReplayRunResult> => {
      const counts = Object.fromEntries(NODE_COMPARISONS.map((result) => [result, 0])) as Record<
        NodeComparison,
        number
      >;
      const error = item.error ? (deps.seal.open(item.error) as { message?: string } | null) : null;
      const result: ReplayRunResult = {
        run_id: item.runId,
        replay_run_id: item.newRunId,
        item: item.item,
        reason: item.reason,
        status: item.status,
        recorded_status: item.recordedStatus,
        error: error?.message ?? null,
        counts,
        nodes: [],
      };
      if (!ended.includes(item)) return result;
      const recorded = steps(item.runId);
      const replayed = steps(item.newRunId!);
      const failedNode = (error as { node_id?: string } | null)?.node_id;
      for (const nodeId of draftNodes) {
        const node = await compareNode(deps, nodeId, recorded, replayed, failedNode);
        counts[node.result]++;
        result.nodes.push(node);
      }
      for (const nodeId of recorded.outputs.keys()) {
        if (draftNodes.includes(nodeId)) continue;
        counts.missing++;
        result.nodes.push({ node_id: nodeId, result: "missing" });
      }
      return result;
    }),
  );
}

async function compareNode(
  deps: ReplayResultsDeps,
  nodeId: string,
  recorded: { outputs: Map<string, unknown> },
  replayed: { outputs: Map<string, unknown>; failed: Set<string> },
  failedNode: string | undefined,
): Promise<ReplayNodeResult> {
  if (replayed.outputs.has(nodeId)) {
    if (!recorded.outputs.has(nodeId)) return { node_id: nodeId, result: "new" };
    const output = replayed.outputs.get(nodeId);
    const recordedOutput = recorded.outputs.get(nodeId);
    if (await sameOutput(deps, output, recordedOutput)) return { node_id: nodeId, result: "same" };
    return { node_id: nodeId, result: "changed", output, recorded_output: recordedOutput };
  }
  if (replayed.failed.has(nodeId) || failedNode === nodeId) return { node_id: nodeId, result: "failed" };
  return { node_id: nodeId, result: recorded.outputs.has(nodeId) ? "missing" : "skipped" };
}
