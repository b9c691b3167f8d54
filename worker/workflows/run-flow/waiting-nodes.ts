// The nodes a run waits on without an activity running: a delay (a durable timer) and a wait (an
// update deciding it, a failure elsewhere in the run, a cancellation, or its time limit).
import { ApplicationFailure, CancellationScope, condition, sleep } from "@temporalio/workflow";
import type { NodeActivityInput } from "../../../core/contracts/run-flow.js";
import { WAIT_REFUSALS, WAIT_TIMED_OUT, type FinishWaitInput, type WaitStart } from "../../../core/contracts/waits.js";
import type { NodeOutcome } from "../../../core/flows/node-input.js";
import { decisionOf, type WaitState } from "../wait-decisions.js";
import { bookkeeping, type Activities } from "./activity-options.js";
import type { RunState } from "./run-state.js";

/** A delay: its activity renders the duration, the workflow sleeps on a durable timer. */
export async function runDelay(
  state: RunState,
  id: string,
  args: NodeActivityInput,
  activities: Activities,
): Promise<NodeOutcome> {
  const { attempt, durationMs } = await activities.delay(args);
  await sleep(durationMs);
  const output = await bookkeeping.completeStep({ runId: state.run.runId, nodeId: id, attempt, output: args.input });
  return { state: "done", output };
}

type WaitEnd = Omit<FinishWaitInput, "runId" | "nodeId" | "waitId" | "attempt" | "type">;

/**
 * A wait: its activity records the wait; the workflow then waits for a decision (an update),
 * a failure elsewhere in the run, a cancellation, or its timeout (a durable timer), and a
 * bookkeeping activity closes the wait with the node's step.
 */
export async function runWait(
  state: RunState,
  id: string,
  args: NodeActivityInput,
  activities: Activities,
): Promise<NodeOutcome> {
  const name = state.byId.get(id)!.name;
  const start = await activities.wait(name ? { ...args, nodeName: name } : args);
  const wait: WaitState = { nodeId: id, start };
  state.waits.set(start.waitId, wait);
  const settled = () => wait.decision !== undefined || state.failure !== undefined;
  let decided: boolean;
  try {
    decided =
      start.timeoutMs === undefined ? (await condition(settled), true) : await condition(settled, start.timeoutMs);
  } catch (error) {
    // The run is being cancelled: its end closes the wait's record.
    wait.closed = true;
    throw error;
  }
  // Written even when the run is cancelled meanwhile: an accepted decision is recorded.
  const finish = (end: WaitEnd) =>
    CancellationScope.nonCancellable(() =>
      bookkeeping.finishWait({
        runId: state.run.runId,
        nodeId: id,
        waitId: start.waitId,
        attempt: start.attempt,
        type: args.type,
        ...end,
      }),
    );
  if (!decided) return waitTimedOut(wait, start, finish);
  const decision = wait.decision;
  if (!decision) {
    wait.closed = true;
    const message = `the run failed at node ${state.failure?.node_id} while this node waited`;
    await finish({ status: "cancelled", step: { status: "failed", error: { message, type: WAIT_REFUSALS.closed } } });
    throw ApplicationFailure.nonRetryable(message, WAIT_REFUSALS.closed);
  }
  return waitDecided(wait, start, decision, finish);
}

/** A wait whose time limit passed: the node fails, or takes its "timeout" branch. */
async function waitTimedOut(
  wait: WaitState,
  start: Pick<WaitStart, "onTimeout" | "timeout">,
  finish: (end: WaitEnd) => Promise<unknown>,
): Promise<NodeOutcome> {
  wait.expired = true;
  if (start.onTimeout === "fail") {
    const message = `timed out after ${start.timeout}`;
    await finish({ status: "expired", step: { status: "failed", error: { message, type: WAIT_TIMED_OUT } } });
    throw ApplicationFailure.nonRetryable(message, WAIT_TIMED_OUT);
  }
  const timedOut = { timed_out: true, expired_at: new Date().toISOString() };
  const output = await finish({
    status: "expired",
    step: { status: "success", output: timedOut, branch: "timeout" },
  });
  return { state: "done", output, branch: "timeout" };
}

/** A decided wait: the decision (approval) or the resume body is the node's output. */
async function waitDecided(
  wait: WaitState,
  start: WaitStart,
  decision: NonNullable<WaitState["decision"]>,
  finish: (end: WaitEnd) => Promise<unknown>,
): Promise<NodeOutcome> {
  const verdict = decisionOf(decision);
  const decidedBy = decision.decidedBy && { id: decision.decidedBy.id, name: decision.decidedBy.name };
  const output =
    start.mode === "approval"
      ? {
          decision: verdict,
          comment: decision.comment ?? null,
          decided_by: decidedBy ?? null,
          decided_at: decision.decidedAt,
        }
      : (decision.body ?? null);
  const stored = await finish({
    status: "decided",
    decision: verdict,
    ...(decision.comment === undefined ? {} : { comment: decision.comment }),
    ...(decidedBy ? { decidedBy } : {}),
    decidedAt: decision.decidedAt,
    step: { status: "success", output, branch: verdict },
  });
  wait.recorded = { waitId: start.waitId, decision: verdict, decidedAt: decision.decidedAt };
  return { state: "done", output: stored, branch: verdict };
}
