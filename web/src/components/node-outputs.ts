// A node's outputs as the editor shows them: the edge labels a branching node follows (a
// condition's true and false, a branch node's cases and default, a wait's decisions and timeout),
// as the server's node declarations give them (core/nodes/*/branches), and the error output of a
// node with on_error "branch". Each has its own "+" on the canvas, and a pin names one of them.
import { branchesOnError, ERROR_BRANCH } from "./node-settings";

/** Whether nodes of this type follow one labelled edge of several. */
export const BRANCHING_TYPES: ReadonlySet<string> = new Set(["condition", "branch", "wait"]);

const scalar = (value: unknown): value is string | number | boolean =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean";

/** A wait's labels: its decisions, and timeout when a timeout takes a branch. */
function waitLabels(config: Record<string, unknown>): string[] {
  const decisions = config.mode === "resume" ? ["resumed"] : ["approved", "rejected"];
  const timeout = config.timeout !== undefined && config.timeout !== "" && config.on_timeout === "branch";
  return timeout ? [...decisions, "timeout"] : decisions;
}

/** The labels a branching node follows, in the order it declares them; none for other nodes. */
export function branchLabels(type: string, config: Record<string, unknown>): string[] {
  if (type === "condition") return ["true", "false"];
  if (type === "wait") return waitLabels(config);
  if (type !== "branch") return [];
  const cases = Array.isArray(config.cases) ? config.cases.filter(scalar).map(String) : [];
  return [...new Set(cases.filter((label) => label !== "default")), "default"];
}

/**
 * Every labelled output of the node: its branches, then its error output when it branches on
 * error. Empty for a node with only its main output.
 */
export function outputLabels(node: { type: string; config: Record<string, unknown>; extra: Record<string, unknown> }) {
  const labels = branchLabels(node.type, node.config);
  return branchesOnError(node.extra) ? [...labels, ERROR_BRANCH] : labels;
}

/** The height of one output's line in a branching node (styles.css .flow-node-output), and the list's top. */
export const OUTPUT_LINE_HEIGHT = 22;
const OUTPUTS_TOP = 7;

/** The height a node's list of outputs adds to it on the canvas (none for a node that does not branch). */
export function outputsHeight(type: string, config: Record<string, unknown>): number {
  const lines = branchLabels(type, config).length;
  return lines === 0 ? 0 : OUTPUTS_TOP + lines * OUTPUT_LINE_HEIGHT;
}
