// What a node receives as its `input` (README "Data between nodes"), from how its parents ended.
// Pure and deterministic: the runFlow workflow builds every node's input with it, and the API
// rebuilds a step's input with it from the recorded step outputs (GET /api/runs/{id}/steps).
import type { FlowEdge, FlowNode } from "../contracts/flow-definition.js";
import type { FlowGraph } from "./graph.js";

/**
 * The label of the edges that leave a node's error handle (a node with `on_error: "branch"`), and
 * the branch such a node takes when it fails. Here rather than beside the definition's schema:
 * the workflow imports it, and zod has no place in its bundle.
 */
export const ERROR_BRANCH = "error";

/** How a node ended, as far as its children are concerned. */
export type NodeOutcome =
  { state: "done"; output: unknown; branch?: string } | { state: "skipped" } | { state: "failed" };

export type OutcomeOf = (id: string) => NodeOutcome | undefined;

/** Each node's incoming edges, in definition order. */
export function incomingEdges(nodes: readonly FlowNode[], edges: readonly FlowEdge[]): Map<string, FlowEdge[]> {
  return new Map(nodes.map((node) => [node.id, edges.filter((edge) => edge.to === node.id)]));
}

/**
 * An edge carries data when its parent is done and, on a branch edge, took that branch. A parent
 * whose failure took its error handle (on_error: "branch") is done with the branch "error": only
 * its error edges carry data, its unlabelled edges none.
 */
export function edgeActive(edge: FlowEdge, outcomeOf: OutcomeOf): boolean {
  const parent = outcomeOf(edge.from);
  if (parent?.state !== "done") return false;
  return edge.branch === undefined ? parent.branch !== ERROR_BRANCH : edge.branch === parent.branch;
}

/** The parents whose edges into the node are active, in edge order, each once. */
export function activeParents(incoming: readonly FlowEdge[], outcomeOf: OutcomeOf): string[] {
  return [...new Set(incoming.filter((edge) => edgeActive(edge, outcomeOf)).map((edge) => edge.from))];
}

/**
 * The node's input: the run's input for a root; its parent's output when one parent is active
 * (unless `keyed`: merge nodes always get one entry per parent); otherwise an object keyed by
 * active parent id. Call it once every parent has an outcome, as the workflow does.
 */
export function nodeInput(
  id: string,
  graph: FlowGraph,
  incoming: readonly FlowEdge[],
  keyed: boolean,
  runInput: unknown,
  outcomeOf: OutcomeOf,
): unknown {
  if (graph.parents.get(id)!.length === 0) return runInput;
  const parents = activeParents(incoming, outcomeOf);
  const outputOf = (parent: string) => (outcomeOf(parent) as { output: unknown }).output;
  if (parents.length === 1 && !keyed) return outputOf(parents[0]!);
  return Object.fromEntries(parents.map((parent) => [parent, outputOf(parent)]));
}

/** Merge nodes get their input keyed by parent even with one parent active. */
export const keyedInput = (handling: string) => handling === "merge";
