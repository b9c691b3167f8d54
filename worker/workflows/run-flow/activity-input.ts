// What a node's activity receives: its config, its input from its parents, the upstream outputs
// its templates name, the run's facts; and, for a node that can end the run alone, what the run's
// end must write with it.
import type { ItemsSetting } from "../../../core/contracts/flow-definition.js";
import { DEFAULT_ITEM_CONCURRENCY, type ItemsRun, type NodeActivityInput } from "../../../core/contracts/run-flow.js";
import { activeParents, keyedInput, nodeInput } from "../../../core/flows/node-input.js";
import { findTemplates } from "../../../core/flows/template.js";
import { handOver, outputOf, skippedNodes, type RunState } from "./run-state.js";

/** Handlings the workflow waits on after their activity has started them (a timer, an update, children). */
const WAITS_AFTER_START: ReadonlySet<string> = new Set(["delay", "wait", "loop", "agent"]);

export const waitsAfterStart = (state: RunState, id: string) => WAITS_AFTER_START.has(state.run.plan[id]!.handling);

/**
 * A node can end the run itself when it runs in one activity, is the only node left and no
 * other sink produced output: its success alone then decides the run's status and output.
 */
export function endsRun(state: RunState, id: string): NodeActivityInput["endsRun"] {
  const { graph, order, outcomes } = state;
  const alone =
    state.run.plan[id]!.execution !== "workflow" &&
    !waitsAfterStart(state, id) &&
    state.inflight.size === 0 &&
    graph.children.get(id)!.length === 0 &&
    order.every(
      (other) =>
        other === id ||
        (outcomes.has(other) && (outcomes.get(other)!.state !== "done" || graph.children.get(other)!.length > 0)),
    );
  if (!alone) return undefined;
  const written = state.succeeded.map(({ nodeId, attempt }) => ({ nodeId, attempt }));
  // Rows nobody has written go with the run's end (the run's bookkeeping writes them if it fails).
  const rows = state.unwritten.length > 0 ? { succeeded: handOver(state) } : {};
  return { skipped: skippedNodes(state).filter((node) => node.nodeId !== id), reused: state.reused, written, ...rows };
}

export function activityInput(state: RunState, id: string): NodeActivityInput {
  const { run, outcomes } = state;
  const node = state.byId.get(id)!;
  const plan = run.plan[id]!;
  const paths = findTemplates(node.items ? [node.config, node.items.from] : node.config).flatMap(
    (finding) => finding.paths,
  );
  const upstream: Record<string, unknown> = {};
  for (const path of paths) {
    const target = path[1];
    if (path[0] === "nodes" && typeof target === "string" && outcomes.get(target)?.state === "done") {
      upstream[target] = outputOf(state, target);
    }
  }
  const merge = keyedInput(plan.handling);
  const edgesIn = state.incoming.get(id) ?? [];
  const outcomeOf = (other: string) => outcomes.get(other);
  return {
    runId: run.runId,
    workspaceId: run.workspaceId,
    flowId: run.flowId,
    nodeId: id,
    type: plan.type,
    handling: plan.handling,
    config: node.config,
    // The API rebuilds this input for the step log with the same function (runs.service steps()).
    input: nodeInput(id, state.graph, edgesIn, merge, run.input, outcomeOf),
    upstream,
    ...(paths.some((path) => path[0] === "trigger") ? { trigger: run.input } : {}),
    run: { id: run.runId, flow_id: run.flowId, version: run.version, started_at: run.startedAt },
    ...(merge ? { parents: activeParents(edgesIn, outcomeOf) } : {}),
    ...(plan.items && node.items ? { items: itemsRun(node.items, plan.retry.max_attempts) } : {}),
  };
}

function itemsRun(items: ItemsSetting, maxAttempts: number): ItemsRun {
  return {
    from: items.from,
    concurrency: items.concurrency ?? DEFAULT_ITEM_CONCURRENCY,
    ...(items.rate_per_second === undefined ? {} : { ratePerSecond: items.rate_per_second }),
    onError: items.on_error ?? "stop",
    maxAttempts,
  };
}
