// The nodes whose work is other workflows: a loop (a child run per item, at most `concurrency` at
// a time), a flow.call (one child run) and an agent (an agent run). Each node's activity records
// the children; the workflow runs them and waits, and a bookkeeping activity records the step.
import { ApplicationFailure, executeChild } from "@temporalio/workflow";
import { AGENT_RUN_WORKFLOW, type AgentRunWorkflow } from "../../../core/contracts/agent-run.js";
import { operatorMemo } from "../../../core/contracts/operator-text.js";
import {
  agentSearchAttributes,
  type AgentStart,
  type LoopStart,
  type NodeActivityInput,
  type RunFlowInput,
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
  };
}

/** Runs a loop's children, `concurrency` lanes at a time; the outputs in item order. */
async function runLoop(run: RunFlowInput, start: LoopStart): Promise<unknown[]> {
  const results: unknown[] = new Array(start.children.length);
  let next = 0;
  const lane = async () => {
    while (next < start.children.length) {
      const index = next++;
      const child = start.children[index]!;
      const result = await runChildFlow(loopChildRun(run, start, child), {
        trigger: start.trigger ?? "loop",
        parent: `run ${run.runId}`,
        memo: { parent_run_id: run.runId },
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
