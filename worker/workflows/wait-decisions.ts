// The waits a workflow holds (a wait node's or a budget's in runFlow, a tool call's approval or a
// budget's in agentRun) and the handlers that decide them: decideWaitUpdate, refused by its
// validator when it cannot be taken, and pendingWaitsQuery; and the close of a decided approval.
// Deterministic: handlers only, and the commands of the close its caller hands in.
import { ApplicationFailure, condition, setHandler } from "@temporalio/workflow";
import {
  WAIT_REFUSALS,
  decideWaitUpdate,
  mayDecide,
  pendingWaitsQuery,
  type WaitDecided,
  type WaitDecisionInput,
  type WaitDeciders,
  type WaitMode,
} from "../../core/contracts/waits.js";

/** A wait, as the workflow holds it while it is pending and once it is settled. */
export interface WaitState {
  /** A wait node's id (runFlow's waits). */
  nodeId?: string;
  start: { mode: WaitMode; deciders: WaitDeciders; resumeToken?: string };
  /** The accepted decision, with the workflow time it was accepted at. */
  decision?: WaitDecisionInput & { decidedAt: string };
  expired?: true;
  /** Closed without a decision: the run was cancelled or failed elsewhere. */
  closed?: true;
  /** The decision, once its record is written (what the update answers). */
  recorded?: WaitDecided;
}

export const refusal = (type: string, message: string) =>
  ApplicationFailure.create({ type, message, nonRetryable: true });

export const decisionOf = (input: WaitDecisionInput) =>
  input.action === "approve" ? "approved" : input.action === "reject" ? "rejected" : "resumed";

/** Why a decision cannot be taken now (the update's validator), or undefined. */
export function refusalOf(wait: WaitState | undefined, input: WaitDecisionInput): ApplicationFailure | undefined {
  if (!wait) return refusal(WAIT_REFUSALS.unknown, "This run has no such wait (or has not started it yet)");
  if (wait.decision) return refusal(WAIT_REFUSALS.decided, `The wait was already ${decisionOf(wait.decision)}`);
  if (wait.expired) return refusal(WAIT_REFUSALS.expired, "The wait timed out");
  if (wait.closed) return refusal(WAIT_REFUSALS.closed, "The wait was closed with its run");
  const actions = wait.start.mode === "resume" ? ["resume"] : ["approve", "reject"];
  if (!actions.includes(input.action)) {
    return refusal(WAIT_REFUSALS.wrongAction, `A ${wait.start.mode} wait takes ${actions.join(" or ")}`);
  }
  if (wait.start.mode === "approval" && (!input.decidedBy || !mayDecide(wait.start.deciders, input.decidedBy))) {
    return refusal(WAIT_REFUSALS.notAllowed, "This member may not decide this wait");
  }
  return undefined;
}

/**
 * Takes decisions of the waits in `waits` (by wait id): an accepted one is answered once the
 * workflow has recorded it (`recorded`), or refused when the wait closes first.
 */
export function handleWaitDecisions(waits: Map<string, WaitState>): void {
  setHandler(
    decideWaitUpdate,
    async (input) => {
      const wait = waits.get(input.waitId);
      // Checked again: something may have settled it since the validator ran.
      const refused = refusalOf(wait, input);
      if (refused) throw refused;
      wait!.decision = { ...input, decidedAt: new Date().toISOString() };
      // The answer comes once the wait's record says so: the API reads it next.
      await condition(() => wait!.recorded !== undefined || wait!.closed === true);
      if (!wait!.recorded) throw refusal(WAIT_REFUSALS.closed, "The wait was closed with its run");
      return wait!.recorded;
    },
    {
      validator: (input) => {
        const refused = refusalOf(waits.get(input.waitId), input);
        if (refused) throw refused;
      },
    },
  );
  setHandler(pendingWaitsQuery, () =>
    [...waits.entries()]
      .filter(([, wait]) => !wait.decision && !wait.expired && !wait.closed)
      .map(([waitId, wait]) => ({
        waitId,
        ...(wait.nodeId === undefined ? {} : { nodeId: wait.nodeId }),
        ...(wait.start.resumeToken ? { resumeToken: wait.start.resumeToken } : {}),
      })),
  );
}

/** A decided approval's end, as its record is closed. */
export interface ApprovalEnd {
  status: "decided";
  decision: "approved" | "rejected";
  comment?: string;
  decidedBy?: { id: string; name: string };
  decidedAt: string;
}

/**
 * Closes a decided approval (a tool call's, or a budget's in an agent run or a run): its record
 * through `finish`, with the verdict, the comment and who decided; then marks it recorded (the
 * decision's update answers). Answers the verdict.
 */
export async function closeDecided(
  wait: WaitState,
  waitId: string,
  finish: (end: ApprovalEnd) => Promise<unknown>,
): Promise<"approved" | "rejected"> {
  const decision = wait.decision!;
  const verdict = decisionOf(decision) === "approved" ? "approved" : "rejected";
  const decidedBy = decision.decidedBy && { id: decision.decidedBy.id, name: decision.decidedBy.name };
  await finish({
    status: "decided",
    decision: verdict,
    ...(decision.comment === undefined ? {} : { comment: decision.comment }),
    ...(decidedBy ? { decidedBy } : {}),
    decidedAt: decision.decidedAt,
  });
  wait.recorded = { waitId, decision: verdict, decidedAt: decision.decidedAt };
  return verdict;
}
