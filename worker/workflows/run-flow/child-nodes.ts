// The nodes whose work is other workflows: a loop (a child run per item, at most `concurrency` at
// a time), a flow.call (one child run) and an agent (an agent run). Each node's activity records
// the children; the workflow runs them and waits, and a bookkeeping activity records the step.
import {
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  executeChild,
  isCancellation,
  patched,
} from "@temporalio/workflow";
import { AGENT_RUN_WORKFLOW, type AgentRunWorkflow } from "../../../core/contracts/agent-run.js";
import { operatorMemo } from "../../../core/contracts/operator-text.js";
import {
  CANCELLED_CHILD_CANCELS_RUN,
  LOOP_STOPS_AT_FAILURE,
  agentSearchAttributes,
  type AgentStart,
  type LoopStart,
  type NodeActivityInput,
  type RunErrorOrigin,
  type RunFlowInput,
  type RunFlowResult,
} from "../../../core/contracts/run-flow.js";
import type { NodeOutcome } from "../../../core/flows/node-input.js";
import { runChildFlow } from "../child-run.js";
import { bookkeeping, type Activities } from "./activity-options.js";
import type { RunState } from "./run-state.js";

/** The input of a loop's (or flow.call's) child run for one item. */
function loopChildRun(run: RunFlowInput, start: LoopStart, child: LoopStart["children"][number]): RunFlowInput {
  return {
    runId: child.runId,
    workspaceId: run.workspaceId,
    flowId: start.flow.id,
    flowName: start.flow.name,
    version: start.flow.version,
    definition: start.flow.definition,
    plan: start.flow.plan,
    input: child.item,
    startedAt: child.startedAt,
    // As the activity that recorded it rendered it: workflow code renders no priority template.
    ...(child.priority !== undefined ? { priority: child.priority } : {}),
  };
}

const childOrigin = (run: RunFlowInput) => ({
  parent: `run ${run.runId}`,
  memo: { parent_run_id: run.runId },
});

/** Error text at most this long is carried up from a child run (its origin keeps its place). */
const CHILD_MESSAGE_MAX = 2000;

/**
 * The node's failure for a child run that did not succeed. Its message names the child and the
 * failure where it started (the child's own, or the one its children carried up), once: error
 * text stays the same size however deep the failure started.
 */
function childFailure(start: LoopStart, index: number, result: RunFlowResult): ApplicationFailure {
  const origin: RunErrorOrigin = result.error?.origin ?? {
    run_id: result.runId,
    ...(result.error?.node_id ? { node_id: result.error.node_id } : {}),
    message: result.error?.message ?? result.status,
  };
  const text =
    origin.message.length > CHILD_MESSAGE_MAX ? `${origin.message.slice(0, CHILD_MESSAGE_MAX)}…` : origin.message;
  const where =
    origin.run_id === result.runId
      ? ""
      : ` (in run ${origin.run_id}${origin.node_id ? `, node ${origin.node_id}` : ""})`;
  const what = start.single ? `flow ${start.flow.name}` : `item ${index}`;
  return ApplicationFailure.create({
    message: `${what} (run ${result.runId}) ${result.status}: ${text}${where}`,
    type: start.single ? "FlowCallFailed" : "LoopItemFailed",
    nonRetryable: true,
    details: [{ origin }],
  });
}

/**
 * Runs a loop's children, `concurrency` lanes at a time, and answers their outputs in item order.
 * The first child that does not succeed stops the loop: no item starts after it, the children
 * still running are cancelled, and the items never started end cancelled; the node then fails
 * with that child's failure, or, when that child was cancelled, is cancelled (so is the run:
 * CANCELLED_CHILD_CANCELS_RUN). When the run is being cancelled, the loop ends the same way and
 * the node is cancelled. Loops recorded before LOOP_STOPS_AT_FAILURE run every item.
 */
async function runLoop(run: RunFlowInput, start: LoopStart): Promise<unknown[]> {
  if (!patched(LOOP_STOPS_AT_FAILURE)) return runEveryItem(run, start);
  const running = CancellationScope.current();
  const lanes = new CancellationScope();
  const results: unknown[] = new Array(start.children.length);
  let next = 0;
  /** Children whose workflow the cancellation kept from starting. */
  const notStarted: string[] = [];
  let failure: ApplicationFailure | undefined;
  /** A child was cancelled (not by this run's own cancellation): the node is cancelled. */
  let childCancelled = false;
  const lane = async () => {
    while (!lanes.consideredCancelled && next < start.children.length) {
      const index = next++;
      const child = start.children[index]!;
      const result = await runChildFlow(loopChildRun(run, start, child), {
        trigger: start.trigger ?? "loop",
        ...childOrigin(run),
      }).catch((error: unknown): RunFlowResult => {
        if (!isCancellation(error)) throw error;
        notStarted.push(child.runId);
        return { runId: child.runId, status: "cancelled" };
      });
      if (result.status === "success") results[index] = result.output;
      else if (!failure && !childCancelled && !running.consideredCancelled) {
        if (result.status === "cancelled" && patched(CANCELLED_CHILD_CANCELS_RUN)) childCancelled = true;
        else failure = childFailure(start, index, result);
        lanes.cancel();
      }
    }
  };
  await lanes.run(() => Promise.all(Array.from({ length: Math.min(start.concurrency, start.children.length) }, lane)));
  const unstarted = [...notStarted, ...start.children.slice(next).map((child) => child.runId)];
  const cancelled = running.consideredCancelled || childCancelled;
  if (unstarted.length > 0) {
    const reason = running.consideredCancelled
      ? `Not run: run ${run.runId} was cancelled first`
      : `Not run: an earlier item of run ${run.runId}'s loop ${childCancelled ? "was cancelled" : "failed"}`;
    await CancellationScope.nonCancellable(() =>
      bookkeeping.cancelUnstartedRuns({ runId: run.runId, runIds: unstarted, reason }),
    );
  }
  if (cancelled) throw new CancelledFailure("The run was cancelled");
  if (failure) throw failure;
  return results;
}

/** A loop as recorded before LOOP_STOPS_AT_FAILURE: every item runs; the first failure fails the node. */
async function runEveryItem(run: RunFlowInput, start: LoopStart): Promise<unknown[]> {
  const results: unknown[] = new Array(start.children.length);
  let next = 0;
  const lane = async () => {
    while (next < start.children.length) {
      const index = next++;
      const child = start.children[index]!;
      const result = await runChildFlow(loopChildRun(run, start, child), {
        trigger: start.trigger ?? "loop",
        ...childOrigin(run),
      });
      if (result.status !== "success") {
        const why = `${result.status}${result.error ? `: ${result.error.message}` : ""}`;
        // (A flow.call's one child is named as such; a loop's by its item.)
        throw start.single
          ? ApplicationFailure.nonRetryable(`flow ${start.flow.name} (run ${child.runId}) ${why}`, "FlowCallFailed")
          : ApplicationFailure.nonRetryable(`item ${index} (run ${child.runId}) ${why}`, "LoopItemFailed");
      }
      results[index] = result.output;
    }
  };
  await Promise.all(Array.from({ length: Math.min(start.concurrency, start.children.length) }, lane));
  return results;
}

/** A loop (or a flow.call): its activity records one child run per item, which run as child workflows. */
export async function runLoopNode(
  state: RunState,
  id: string,
  args: NodeActivityInput,
  activities: Activities,
): Promise<NodeOutcome> {
  const start = await activities.loop(args);
  const outputs = await runLoop(state.run, start);
  const output = await bookkeeping.completeStep({
    runId: state.run.runId,
    nodeId: id,
    attempt: start.attempt,
    output: start.single ? outputs[0] : outputs,
  });
  return { state: "done", output };
}

/** An agent: its activity records the agent run, which then runs as a child workflow. */
export async function runAgent(
  state: RunState,
  id: string,
  args: NodeActivityInput,
  activities: Activities,
): Promise<NodeOutcome> {
  const { run } = state;
  const start = (await activities[args.type]!(args)) as unknown as AgentStart;
  const result = await executeChild<AgentRunWorkflow>(AGENT_RUN_WORKFLOW, {
    workflowId: start.agent.agentRunId,
    args: [start.agent],
    typedSearchAttributes: agentSearchAttributes(run.workspaceId),
    memo: operatorMemo({ agent_id: start.agent.agentId, parent_run_id: run.runId }),
  });
  if (result.status !== "success") {
    throw ApplicationFailure.nonRetryable(
      `agent run ${result.agentRunId} ${result.status} (${result.reason})${result.error ? `: ${result.error}` : ""}`,
      "AgentFailed",
    );
  }
  const output = await bookkeeping.completeStep({
    runId: run.runId,
    nodeId: id,
    attempt: start.attempt,
    output: {
      agent_run_id: result.agentRunId,
      answer: result.answer,
      reason: result.reason,
      steps: result.steps,
      usage: result.usage,
    },
  });
  return { state: "done", output };
}
