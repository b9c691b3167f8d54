import { ApplicationFailure } from "@temporalio/activity";
import type { NodeActivityInput, NodeActivityResult, NodeHandling } from "../../../core/contracts/run-flow.js";
import { handlingOf } from "../../../core/flows/plan.js";
import type { NodeEnv } from "../../../core/nodes/define-node.js";
import { budgetHeld } from "./budget-holds.js";
import { runAttempt } from "./node-attempt.js";
import { apiKeyFor, nodeEnvFor } from "./node-env.js";
import { definitionOf, type NodeActivityParts } from "./node-parts.js";
import { prepareNode } from "./prepare-node.js";
import { runItems, type ItemsWatch } from "./node-items.js";

type BehaviourParts = Pick<
  NodeActivityParts,
  | "prisma"
  | "clock"
  | "config"
  | "seal"
  | "blobs"
  | "nodes"
  | "egress"
  | "sandbox"
  | "models"
  | "nodeCredentials"
  | "items"
>;

/**
 * What a node of an instant or activity handling does, once: the run's attempts (recorded around
 * it) and a node's test run (nothing recorded, `log` collecting its entries) both call it.
 */
export async function nodeBehaviour(
  parts: BehaviourParts,
  args: NodeActivityInput,
  { attempt, signal, log, watch }: { attempt: number; signal: AbortSignal; log?: NodeEnv["log"]; watch?: ItemsWatch },
): Promise<{ output: unknown; branch?: string }> {
  const definition = definitionOf(parts.nodes, args.type);
  if (args.items && definition.kind === "activity" && watch) return runItems(parts, args, { attempt, signal, watch });
  switch (handlingOf(definition)) {
    case "trigger":
      return { output: args.input };
    // Control nodes: the behaviour is the node's own (decide, combine).
    case "condition":
    case "branch": {
      const { config } = await prepareNode(parts, args);
      return definition.decide!(args.input, config);
    }
    case "merge": {
      const config = definition.config.parse(args.config);
      const byParent = (args.input ?? {}) as Record<string, unknown>;
      return { output: definition.combine!(byParent, args.parents ?? Object.keys(byParent), config) };
    }
    case "activity": {
      const { input, config } = await prepareNode(parts, args);
      const env = nodeEnvFor(parts, args, attempt, signal, await apiKeyFor(parts, args.workspaceId, config));
      const output = await definition.execute!(input, config, log ? { ...env, log } : env);
      return { output: output ?? null };
    }
    default:
      throw ApplicationFailure.nonRetryable(`A ${args.type} node cannot be run alone`, "NodeNotTestable");
  }
}

/**
 * The activity of a node that runs at once: an attempt of its behaviour, recorded (only an
 * activity node lasts); a budgeted node a reached budget holds back answers the budget instead.
 */
export async function runNodeAtOnce(
  parts: BehaviourParts & Pick<NodeActivityParts, "steps" | "metrics">,
  handling: NodeHandling,
  args: NodeActivityInput,
): Promise<NodeActivityResult> {
  const held = handling === "activity" ? await budgetHeld(parts, args) : undefined;
  if (held) return held;
  return runAttempt(parts, args, { instant: handling !== "activity" }, (context) =>
    nodeBehaviour(parts, args, context),
  );
}
