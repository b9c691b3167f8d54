// The input each node of a run received, rebuilt when the step log is read: from the run's pinned
// definition, its input and the outputs its steps recorded, with the function the workflow builds
// inputs with (nodeInput). Nothing more is written while a run runs.
import type { FlowDefinition } from "../../contracts/flow-definition.js";
import { buildGraph } from "../../flows/graph.js";
import { edgeActive, incomingEdges, nodeInput, type NodeOutcome } from "../../flows/node-input.js";

/**
 * Why a step shows no input:
 * - `not_run`: the node was skipped (a branch not taken, or not reached after a failure);
 * - `upstream_pending`: a parent's outcome is not recorded yet (quick nodes' rows are written in
 *   batches, nodes taken over by a retry are recorded at the run's end): shown once it is;
 * - `definition_missing`: the run's flow version no longer exists (its flow was deleted).
 */
export type StepInputUnavailable = "not_run" | "upstream_pending" | "definition_missing";

export type StepInput = { input: unknown; unavailable: null } | { input: null; unavailable: StepInputUnavailable };

export interface RecordedStep {
  nodeId: string;
  attempt: number;
  status: string;
  output: unknown;
  branch: string | null;
  /** A failed step whose failure its node handled (on_error) carries `handled` here. */
  error?: unknown;
}

/** A failed step that its node's on_error handled: its children saw its output and branch. */
const handled = (step: RecordedStep) =>
  step.status === "failed" &&
  typeof step.error === "object" &&
  step.error !== null &&
  typeof (step.error as { handled?: unknown }).handled === "string";

/** The input of every node that has a step, by node id (every attempt of a node had the same). */
export function stepInputs(args: {
  /** The version the run pinned; null when it is gone. */
  definition: FlowDefinition | null;
  runInput: unknown;
  steps: readonly RecordedStep[];
  /** Whether a node type takes its input keyed by parent (merge), see keyedInput. */
  keyed: (type: string) => boolean;
}): Map<string, StepInput> {
  const latest = new Map<string, RecordedStep>();
  for (const step of args.steps) {
    const seen = latest.get(step.nodeId);
    if (!seen || step.attempt > seen.attempt) latest.set(step.nodeId, step);
  }
  const result = new Map<string, StepInput>();
  const { definition } = args;
  if (!definition) {
    for (const id of latest.keys()) result.set(id, { input: null, unavailable: "definition_missing" });
    return result;
  }

  const graph = buildGraph(definition.nodes, definition.edges);
  const types = new Map(definition.nodes.map((node) => [node.id, node.type]));
  const incoming = incomingEdges(definition.nodes, definition.edges);

  // How each node ended as its children saw it; undefined when not known (yet).
  const outcomes = new Map<string, NodeOutcome | undefined>();
  const outcomeOf = (id: string): NodeOutcome | undefined => {
    if (outcomes.has(id)) return outcomes.get(id);
    outcomes.set(id, undefined);
    const step = latest.get(id);
    let outcome: NodeOutcome | undefined;
    if (step?.status === "success" || (step && handled(step))) {
      outcome = { state: "done", output: step.output, ...(step.branch === null ? {} : { branch: step.branch }) };
    } else if (step?.status === "skipped") outcome = { state: "skipped" };
    else if (step?.status === "failed") outcome = { state: "failed" };
    else if (!step && types.has(id)) {
      // Skipped nodes are recorded at the run's end; until then the engine's rule tells them:
      // every parent settled and no edge into the node active.
      const parents = graph.parents.get(id)!;
      const settled = parents.length > 0 && parents.every((parent) => outcomeOf(parent) !== undefined);
      const active = (incoming.get(id) ?? []).some((edge) => edgeActive(edge, outcomeOf));
      if (settled && !active) outcome = { state: "skipped" };
    }
    outcomes.set(id, outcome);
    return outcome;
  };

  for (const [id, step] of latest) {
    const type = types.get(id);
    if (type === undefined) result.set(id, { input: null, unavailable: "definition_missing" });
    else if (step.status === "skipped") result.set(id, { input: null, unavailable: "not_run" });
    else if (!graph.parents.get(id)!.every((parent) => outcomeOf(parent) !== undefined)) {
      result.set(id, { input: null, unavailable: "upstream_pending" });
    } else {
      const input = nodeInput(id, graph, incoming.get(id)!, args.keyed(type), args.runInput, outcomeOf);
      result.set(id, { input, unavailable: null });
    }
  }
  return result;
}
