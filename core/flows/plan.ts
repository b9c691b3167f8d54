// The run plan: how the workflow treats each node, with its timeout and retry policy (the node's
// own values over its type's defaults over its category's).
import type { NodeHandling, NodePlan } from "../contracts/run-flow.js";
import type { NodeCategory, NodeDefinition } from "../nodes/define-node.js";
import type { NodeRegistry } from "../nodes/registry.js";
import type { FlowDefinition, RetryPolicy } from "./definition.js";

const CATEGORY_DEFAULTS: Record<NodeCategory, { timeoutMs: number; retry: Required<RetryPolicy> }> = {
  trigger: { timeoutMs: 10_000, retry: policy(3, 1000, 2, 10_000) },
  logic: { timeoutMs: 30_000, retry: policy(3, 1000, 2, 10_000) },
  utility: { timeoutMs: 60_000, retry: policy(3, 1000, 2, 30_000) },
  data: { timeoutMs: 120_000, retry: policy(3, 1000, 2, 30_000) },
  integration: { timeoutMs: 300_000, retry: policy(5, 1000, 2, 60_000) },
  ai: { timeoutMs: 600_000, retry: policy(5, 2000, 2, 120_000) },
};

function policy(
  max_attempts: number,
  initial_interval_ms: number,
  backoff_coefficient: number,
  max_interval_ms: number,
) {
  return { max_attempts, initial_interval_ms, backoff_coefficient, max_interval_ms };
}

const CONTROL_HANDLING: Record<string, NodeHandling> = {
  condition: "condition",
  branch: "branch",
  merge: "merge",
  delay: "delay",
  wait: "wait",
  loop: "loop",
  "ai.agent": "agent",
};

export function handlingOf(definition: NodeDefinition): NodeHandling {
  if (definition.kind === "trigger") return "trigger";
  if (definition.kind === "activity") return "activity";
  const handling = CONTROL_HANDLING[definition.type];
  if (!handling) throw new Error(`Control node type "${definition.type}" has no handling in the engine`);
  return handling;
}

/** One line for the Temporal UI: the node's id, and its name when it has one. */
function activitySummary(node: FlowDefinition["nodes"][number]): string {
  const name = node.name?.replace(/\s+/g, " ").trim();
  return name ? `${node.id}: ${name}`.slice(0, 200) : node.id;
}

/** The plan of a validated definition; every node type must be known to the registry. */
export function buildRunPlan(definition: FlowDefinition, registry: NodeRegistry): Record<string, NodePlan> {
  const plan: Record<string, NodePlan> = {};
  for (const node of definition.nodes) {
    const type = registry.get(node.type);
    if (!type) throw new Error(`Unknown node type "${node.type}"`);
    const base = CATEGORY_DEFAULTS[type.category];
    plan[node.id] = {
      type: node.type,
      handling: handlingOf(type),
      ...(type.execution === "local" ? { execution: "local" as const } : {}),
      summary: activitySummary(node),
      timeoutMs: node.timeout_ms ?? type.defaults?.timeoutMs ?? base.timeoutMs,
      retry: { ...base.retry, ...type.defaults?.retry, ...node.retry },
    };
  }
  return plan;
}
