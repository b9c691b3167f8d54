// Which nodes a rerun carries over from the run it reruns, and which run again. Pure: the
// rerun (rerun-run.ts) reads the runs and versions, this decides.
import type { FlowDefinition } from "../../contracts/flow-definition.js";
import { buildGraph, topologicalOrder, type FlowGraph } from "../../flows/graph.js";

/**
 * Where a rerun starts: a node (it and everything downstream run again), `failed` (every node that
 * succeeded is carried: a retry), or `start` (nothing is carried: the whole flow runs again).
 */
export type RerunFrom = { node: string } | "failed" | "start";

export interface CarryPlanInput {
  /** The version the original run ran. */
  original: FlowDefinition;
  /** The version the rerun runs (the same one, or the flow's latest). */
  target: FlowDefinition;
  /** The nodes that succeeded in the original run. */
  succeeded: ReadonlySet<string>;
  from: RerunFrom;
  /**
   * The trigger's input is replaced: the entry nodes (no parents) run again on it, and what
   * follows them is carried as it would be otherwise (its recorded outputs kept).
   */
  newInput?: boolean;
}

/** Why a rerun cannot carry over what it should: the nodes at fault, named. */
export type CarryProblem =
  { kind: "from_node_missing"; nodes: string[] } | { kind: "carried_node_changed"; nodes: string[] };

export type CarryPlan = { carried: string[] } | { problem: CarryProblem };

/** Every node reachable from `id`, `id` included. */
function downstreamOf(graph: FlowGraph, id: string): Set<string> {
  const seen = new Set<string>();
  const pending = [id];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    pending.push(...(graph.children.get(next) ?? []));
  }
  return seen;
}

function graphOf(definition: FlowDefinition): { graph: FlowGraph; order: string[] } {
  const graph = buildGraph(definition.nodes, definition.edges ?? []);
  return { graph, order: topologicalOrder(graph) };
}

/**
 * The nodes carried over in `definition`: those that succeeded, are not `from` or downstream of
 * it, and all of whose parents are carried (a node after one that runs again runs again too).
 */
function carriedIn(
  definition: FlowDefinition,
  succeeded: ReadonlySet<string>,
  from: RerunFrom,
  newInput = false,
): string[] {
  if (from === "start") return [];
  const { graph, order } = graphOf(definition);
  const rerun = typeof from === "object" ? downstreamOf(graph, from.node) : new Set<string>();
  const carried = new Set<string>();
  // Entry nodes that run again on a new input: what follows them may still be carried.
  const fresh = new Set<string>();
  for (const id of order) {
    if (!succeeded.has(id) || rerun.has(id)) continue;
    const parents = graph.parents.get(id)!;
    if (newInput && parents.length === 0) fresh.add(id);
    else if (parents.every((parent) => carried.has(parent) || fresh.has(parent))) carried.add(id);
  }
  return order.filter((id) => carried.has(id));
}

/**
 * The nodes a rerun carries over, in the order the target version runs them; or the problem that
 * forbids it: `from` is not a node of the target version, or a node the original version would
 * carry is gone from the target or has another type there (its recorded output would not fit).
 */
export function carryPlan({ original, target, succeeded, from, newInput }: CarryPlanInput): CarryPlan {
  const targetNodes = new Map(target.nodes.map((node) => [node.id, node.type]));
  if (typeof from === "object" && !targetNodes.has(from.node)) {
    return { problem: { kind: "from_node_missing", nodes: [from.node] } };
  }
  const originalTypes = new Map(original.nodes.map((node) => [node.id, node.type]));
  // `from` may be new in the target: in the original everything it would leave is carried.
  const originalFrom = typeof from === "object" && !originalTypes.has(from.node) ? "failed" : from;
  const changed = carriedIn(original, succeeded, originalFrom, newInput).filter(
    (id) => targetNodes.get(id) !== originalTypes.get(id),
  );
  if (changed.length > 0) return { problem: { kind: "carried_node_changed", nodes: changed } };
  return { carried: carriedIn(target, succeeded, from, newInput) };
}
