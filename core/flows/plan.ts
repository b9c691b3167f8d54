// The run plan: how the workflow treats each node, with its timeout and retry policy (the node's
// own values over its type's defaults over its category's).
import type { NodeHandling, NodePlan } from "../contracts/run-flow.js";
import type { NodeDefinition } from "../nodes/define-node.js";
import type { NodeRegistry } from "../nodes/registry.js";
import type { FlowDefinition } from "../contracts/flow-definition.js";
import { nodeSettings } from "../nodes/node-settings.js";

const CONTROL_HANDLING: Record<string, NodeHandling> = {
  condition: "condition",
  branch: "branch",
  merge: "merge",
  delay: "delay",
  wait: "wait",
  loop: "loop",
  // One child run, waited for as a loop's are (core/runs/start/loop-runs.ts).
  "flow.call": "loop",
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
    const { timeoutMs, retry } = nodeSettings(node, type);
    const handling = handlingOf(type);
    // A node that runs per item is a regular activity whatever its type: it may run long,
    // heartbeats its progress and resumes after the items it recorded (docs/engine.md, "Items").
    const perItem = node.items !== undefined && handling === "activity";
    plan[node.id] = {
      type: node.type,
      handling,
      // A trigger passes the run's input on: the workflow does that without an activity.
      ...(handling === "trigger"
        ? { execution: "workflow" as const }
        : type.execution === "local" && !perItem
          ? { execution: "local" as const }
          : {}),
      summary: activitySummary(node),
      timeoutMs,
      retry,
      // Absent for stop, as in every plan made before on_error existed.
      ...(node.on_error && node.on_error !== "stop" ? { onError: node.on_error } : {}),
      ...(perItem ? { items: true as const } : {}),
    };
  }
  return plan;
}
