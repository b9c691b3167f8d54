// The branch of a pinned node (issue 51): a pin stands for a step, its output and the branch it
// took, as a run records them (GET /api/runs/{id}/steps). A branching node's real output is its
// input, unchanged (condition, branch), or a decision (wait): the edge it follows is never read
// from the output, so a pin of such a node must name that branch, one of the node's labels, and
// the run follows it as it would the node's own decision. A node that only takes its error handle
// may be pinned on it ("error"); any other node's pin names no branch.
import type { FlowNode } from "../../contracts/flow-definition.js";
import { ERROR_BRANCH } from "../../flows/node-input.js";
import type { NodeDefinition } from "../../nodes/define-node.js";
import { DomainError } from "../../errors.js";

/** A pin or `until` names no node of the draft, pins a trigger, or a pin's branch does not fit its node (400). */
export class TestRunNodeRefused extends DomainError {
  override name = "TestRunNodeRefused";
  constructor(message: string) {
    super("invalid", "invalid_test_node", message);
  }
}

/** The edge labels the node can follow, or undefined when its config does not say (a template where a list is). */
function labelsOf(node: FlowNode, type: NodeDefinition): string[] | undefined {
  const own = node.on_error === "branch" ? [ERROR_BRANCH] : [];
  if (!type.branches) return own;
  const config = type.config.safeParse(node.config);
  return config.success ? [...type.branches(config.data as Record<string, unknown>), ...own] : undefined;
}

const quoted = (labels: readonly string[]) => labels.map((label) => JSON.stringify(label)).join(" | ");

/**
 * The branch a pinned node takes: the pin's, when the node can follow it; none for a node without
 * branches whose pin names none. TestRunNodeRefused, naming the node and the shape expected, else.
 */
export function pinnedBranch(node: FlowNode, type: NodeDefinition, branch: string | undefined): string | undefined {
  const labels = labelsOf(node, type);
  const named = `Pinned data for ${node.id} (${node.type})`;
  if (branch === undefined) {
    if (!type.branches) return undefined;
    const shape = `{ "output": …, "branch": ${labels ? quoted(labels) : "one of its edge labels"} }`;
    throw new TestRunNodeRefused(
      `${named}: a branching node is pinned with the branch it takes, as its steps record it: ${shape}`,
    );
  }
  if (labels && !labels.includes(branch)) {
    const takes = labels.length > 0 ? `it takes ${quoted(labels)}` : `pin { "output": … } alone`;
    throw new TestRunNodeRefused(`${named}: no branch ${JSON.stringify(branch)}, ${takes}`);
  }
  return branch;
}
