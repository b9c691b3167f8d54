// Starting one node: by its handling (a plain activity, a delay, a wait, a loop, an agent, or a
// trigger the workflow resolves itself), and settling its outcome into the run's state.
import { isCancellation } from "@temporalio/workflow";
import type { NodeActivityInput, NodeActivityResult, StepRecord } from "../../../core/contracts/run-flow.js";
import type { NodeOutcome } from "../../../core/flows/node-input.js";
import { nodeActivities } from "./activity-options.js";
import { activityInput, waitsAfterStart } from "./activity-input.js";
import { runAfterBudgetHold } from "./budget-hold.js";
import { runAgent, runLoopNode } from "./child-nodes.js";
import { handledFailure, handlesFailure, runErrorOf, treeClosed } from "./node-failure.js";
import type { RunState } from "./run-state.js";
import { runDelay, runWait } from "./waiting-nodes.js";

/** A regular activity: not local, not resolved by the workflow. */
const regular = (state: RunState, id: string) => state.run.plan[id]!.execution === undefined;
/** A regular node whose activity can write earlier rows as it starts. */
export const carriesRows = (state: RunState, id: string) => regular(state, id) && !waitsAfterStart(state, id);
/** A node the workflow waits on beyond this workflow task: a regular activity, a timer, a child. */
export const waitsOnServer = (state: RunState, id: string) => regular(state, id) || waitsAfterStart(state, id);

/**
 * A node the workflow resolves itself (a trigger: its output is the run's input), at the time
 * of this workflow task; its step row goes with the next write, as a local node's does.
 */
function resolveInWorkflow(state: RunState, id: string): Promise<NodeOutcome> {
  const { input } = activityInput(state, id);
  const now = new Date().toISOString();
  state.unwritten.push({
    nodeId: id,
    type: state.run.plan[id]!.type,
    attempt: 1,
    startedAt: now,
    finishedAt: now,
    output: input,
  });
  return Promise.resolve({ state: "done", output: input });
}

function runNode(
  state: RunState,
  id: string,
  ending: NodeActivityInput["endsRun"],
  carried?: StepRecord[],
): Promise<NodeOutcome> {
  const plan = state.run.plan[id]!;
  if (plan.execution === "workflow") return resolveInWorkflow(state, id);
  const args = { ...activityInput(state, id), ...(ending ? { endsRun: ending } : {}), ...(carried ? { carried } : {}) };
  const activities = nodeActivities(plan);
  if (plan.handling === "delay") return runDelay(state, id, args, activities);
  if (plan.handling === "wait") return runWait(state, id, args, activities);
  if (plan.handling === "agent") return runAgent(state, id, args, activities);
  if (plan.handling === "loop") return runLoopNode(state, id, args, activities);
  const settle = (result: NodeActivityResult): NodeOutcome => {
    if (result.runEnded) state.runEnded = true;
    if (result.step) {
      const record = { nodeId: id, type: plan.type, ...result.step, output: result.output, branch: result.branch };
      (result.unwritten ? state.unwritten : state.succeeded).push(record);
    }
    return {
      state: "done",
      output: result.output,
      ...(result.branch === undefined ? {} : { branch: result.branch }),
    };
  };
  // A budgeted node a reached budget held back runs once its budget wait is approved.
  return activities[plan.type]!(args).then((result) =>
    result.budget ? runAfterBudgetHold(state, id, args, activities, result.budget).then(settle) : settle(result),
  );
}

// The SDK records a stack trace for every promise a workflow creates (for its stack-trace
// query): a node settles through one `then` and the plan walk waits on one promise per turn,
// rather than through async wrappers, then/finally chains and Promise.race.
/** Starts a node; when it settles, its outcome (or the run's failure or cancellation) is recorded and the walk woken. */
export function launchNode(
  state: RunState,
  id: string,
  ending: NodeActivityInput["endsRun"],
  carried?: StepRecord[],
): void {
  state.inflight.add(id);
  const settle = (outcome: NodeOutcome) => {
    state.outcomes.set(id, outcome);
    state.inflight.delete(id);
    state.wake();
  };
  let step: Promise<NodeOutcome>;
  try {
    step = runNode(state, id, ending, carried);
  } catch (error) {
    step = Promise.reject(error as Error);
  }
  step.then(settle, (error: unknown) => {
    if (isCancellation(error) || treeClosed(error)) {
      state.cancelled = true;
      state.interrupted.push(id);
    } else if (handlesFailure(state, id)) {
      handledFailure(state, id, error).then(settle, (unrecorded: unknown) => {
        if (isCancellation(unrecorded)) state.cancelled = true;
        else state.failure ??= runErrorOf(id, unrecorded);
        settle({ state: "failed" });
      });
      return;
    } else state.failure ??= runErrorOf(id, error);
    settle({ state: "failed" });
  });
}
