// What one run of runFlow holds while it walks its plan: the graph, each node's outcome, the nodes
// in flight, the step rows still to write, and how the run is ending. Every part of the workflow
// (the plan walk, node dispatch, waits, child runs, the run's end) reads and updates this one object.
import type { FinalizeRunInput, RunError, RunFlowInput, StepRecord } from "../../../core/contracts/run-flow.js";
import type { FlowEdge, FlowNode } from "../../../core/contracts/flow-definition.js";
import { buildGraph, topologicalOrder, type FlowGraph } from "../../../core/flows/graph.js";
import { incomingEdges, type NodeOutcome } from "../../../core/flows/node-input.js";
import type { WaitState } from "../wait-decisions.js";

export interface RunState {
  readonly run: RunFlowInput;
  readonly graph: FlowGraph;
  /** The nodes in topological order. */
  readonly order: string[];
  readonly byId: Map<string, FlowNode>;
  readonly incoming: Map<string, FlowEdge[]>;
  readonly outcomes: Map<string, NodeOutcome>;
  readonly inflight: Set<string>;
  /** Resumes the plan walk once a node has settled. */
  wake: () => void;
  readonly reused: FinalizeRunInput["reused"];
  /** Successes whose step rows their activities wrote after answering (see NodeActivityResult.step). */
  readonly succeeded: StepRecord[];
  /** Successes of local nodes whose rows nobody has written yet (see NodeActivityResult.unwritten). */
  unwritten: StepRecord[];
  failure: RunError | undefined;
  cancelled: boolean;
  /** Nodes a cancellation stopped (their step rows may be missing: see FinalizeRunInput.interrupted). */
  readonly interrupted: string[];
  /** The last node's success ended the run record (see NodeActivityInput.endsRun). */
  runEnded: boolean;
  /** Waits of wait nodes by wait id: decided through decideWaitUpdate. */
  readonly waits: Map<string, WaitState>;
}

export function createRunState(run: RunFlowInput): RunState {
  const { nodes, edges } = run.definition;
  const graph = buildGraph(nodes, edges);
  return {
    run,
    graph,
    order: topologicalOrder(graph),
    byId: new Map(nodes.map((node) => [node.id, node])),
    incoming: incomingEdges(nodes, edges),
    outcomes: new Map(),
    inflight: new Set(),
    wake: () => {},
    reused: [],
    succeeded: [],
    unwritten: [],
    failure: undefined,
    cancelled: false,
    interrupted: [],
    runEnded: false,
    waits: new Map(),
  };
}

export const outputOf = (state: RunState, id: string) => (state.outcomes.get(id) as { output: unknown }).output;

/** Hands the unwritten rows to a writer: from then on they count as written after answering. */
export function handOver(state: RunState): StepRecord[] {
  const rows = state.unwritten;
  state.unwritten = [];
  state.succeeded.push(...rows);
  return rows;
}

/** Nodes that never ran: skipped, or not reached after a failure or a cancellation. */
export function skippedNodes(state: RunState): Array<{ nodeId: string; type: string }> {
  return state.order
    .filter((id) => !state.outcomes.has(id) || state.outcomes.get(id)!.state === "skipped")
    .map((id) => ({ nodeId: id, type: state.run.plan[id]!.type }));
}
