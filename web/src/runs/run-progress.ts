// Where each node of a run stands, in the order the nodes run: from the run's steps and the nodes
// of the flow version it pinned (GET /api/runs/{id}/steps).
import type { RunStatus, RunSteps, Step } from "../types";
import { handledFailure } from "../components/node-settings";
import { errorText } from "./step-error";

/**
 * A step's status, or what a node without one is: still to run, taken over by a retry, never run;
 * or cancelled: the step the run was in when it was cancelled (recorded as failed, with why); or
 * handled: it failed and its on_error (continue, branch) let the run go on.
 */
export type NodeState = Step["status"] | "pending" | "carried_over" | "not_run" | "cancelled" | "handled";

export interface NodeProgress {
  id: string;
  /** The name given in the editor, else the id. */
  label: string;
  type: string;
  state: NodeState;
  /** Its attempts in order (the last one is the node's outcome). */
  attempts: Step[];
  /** In a retry, the run this node's success was taken over from. */
  carriedOverFrom: string | null;
}

/** Whether a run's status is not an end yet: running, or queued (waiting at its flow's gate). */
export const unended = (status: string | undefined) => status === "running" || status === "queued";

/** The nodes of a run in graph order (step order when the API names no nodes), each with where it stands. */
export function runProgress(
  steps: (Pick<RunSteps, "items"> & Partial<Omit<RunSteps, "items">>) | undefined,
  shownStatus: RunStatus | "queued" | undefined,
): NodeProgress[] {
  const runStatus = shownStatus === "queued" ? "running" : shownStatus;
  const attemptsOf = new Map<string, Step[]>();
  for (const step of steps?.items ?? []) attemptsOf.set(step.node_id, [...(attemptsOf.get(step.node_id) ?? []), step]);
  for (const attempts of attemptsOf.values()) attempts.sort((a, b) => a.attempt - b.attempt);

  const progress = (id: string, type: string, name: string | null, carried: string | null): NodeProgress => {
    const attempts = attemptsOf.get(id) ?? [];
    const carriedOverFrom = carried ?? attempts.find((a) => a.carried_over_from)?.carried_over_from ?? null;
    const last = attempts.at(-1);
    const state: NodeState = carriedOverFrom
      ? "carried_over"
      : last
        ? cancelledIn(runStatus, last)
          ? "cancelled"
          : handledFailure(last)
            ? "handled"
            : last.status
        : runStatus === "running" || runStatus === undefined
          ? "pending"
          : "not_run";
    return { id, label: name || id, type, state, attempts, carriedOverFrom };
  };

  const listed = (steps?.nodes ?? []).map((node) => progress(node.id, node.type, node.name, node.carried_over_from));
  const seen = new Set(listed.map((node) => node.id));
  // Steps of nodes the API did not list (an API without `nodes`, a version gone): in step order.
  for (const [id, attempts] of attemptsOf) {
    if (!seen.has(id)) listed.push(progress(id, attempts[0]!.type, null, null));
  }
  return listed;
}

/** The step a cancellation stopped: the engine ends it as failed, saying the run was cancelled while it ran. */
const cancelledIn = (runStatus: RunStatus | undefined, step: Step) =>
  runStatus === "cancelled" && step.status === "failed" && /\bcancelled\b/i.test(errorText(step.error));

/** What a node's state reads as. */
export function stateLabel(node: NodeProgress): string {
  switch (node.state) {
    case "carried_over":
      return "carried over";
    case "not_run":
      return "not run";
    case "handled":
      return "failed, handled";
    default:
      return node.state;
  }
}

/** The node's duration in this run: its last attempt's; none for nodes taken over or not run. */
export function durationOf(node: NodeProgress): number | null {
  if (node.state === "carried_over") return null;
  return node.attempts.at(-1)?.duration_ms ?? null;
}
