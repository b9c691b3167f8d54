// flow.run, an agent's tool that runs a flow: the first activity checks the call and records the
// child run (one starter: core/runs/start/child-runs.ts), the workflow runs it as a child workflow, and
// the second activity records its outcome, worded for the model.
import { Context } from "@temporalio/activity";
import { derivedId } from "../../../lib/ids.js";
import type { ToolArguments } from "../../../core/agents/tools.js";
import type { ToolCallInput, ToolCallResult } from "../../../core/contracts/agent-run.js";
import type { RunFlowInput } from "../../../core/contracts/run-flow.js";
import { FlowInactive, FlowNotFound, InvalidPlan } from "../../../core/errors.js";
import {
  childRunInput,
  ParentRunEnded,
  RunTreeClosed,
  RunTreeLimit,
  startChildRuns,
} from "../../../core/runs/start/child-runs.js";
import type { AgentActivityContext } from "./agent-context.js";
import { recordAgentStep, recordRefusedToolCall } from "./agent-steps.js";
import { asContent, parseToolCall, toolError } from "./tool-arguments.js";

/** A flow run started by an agent's flow.run derives its id from the agent run and step. */
export const agentChildRunId = (agentRunId: string, number: number) => derivedId("run", ["agent", agentRunId, number]);

type StartDeps = Pick<AgentActivityContext, "prisma" | "clock" | "seal" | "childRuns" | "metrics">;

/** flow.run, first half: checks the call and records the child run (its id derives from the step). */
export async function agentStartFlowRun(
  deps: StartDeps,
  input: ToolCallInput,
): Promise<{ run: RunFlowInput } | { result: ToolCallResult }> {
  const fail = async (message: string) => {
    const result = toolError(message);
    await recordRefusedToolCall(deps, input, "flow.run", result);
    return { result };
  };
  const parsed = parseToolCall(input);
  if (parsed.error !== undefined) return fail(parsed.error);
  const args = parsed.args as ToolArguments<"flow.run">;
  let started;
  try {
    started = await deps.prisma.$transaction((tx) =>
      startChildRuns(tx, deps.childRuns, {
        workspaceId: input.workspaceId,
        flowId: args.flow_id,
        trigger: "agent",
        parent: { agentRunId: input.agentRunId },
        runs: [{ id: agentChildRunId(input.agentRunId, input.number), input: args.input ?? {} }],
        taskQueue: Context.current().info.taskQueue,
      }),
    );
  } catch (error) {
    const refusal = flowRunRefusal(args.flow_id, error);
    if (refusal === undefined) throw error;
    return fail(refusal);
  }
  if (started.recorded > 0) deps.metrics?.runsStarted.inc({ trigger: "agent" });
  return { run: childRunInput(started) };
}

/** Why the flow cannot run, worded for the model, for the refusals the model can act on. */
function flowRunRefusal(flowId: string, error: unknown): string | undefined {
  if (error instanceof FlowNotFound) return `no flow ${flowId} in this workspace`;
  if (error instanceof FlowInactive) return `the flow ${flowId} is ${error.flowStatus}, not active`;
  if (error instanceof InvalidPlan) return `the flow ${flowId} cannot run here: ${error.reason}`;
  if (error instanceof RunTreeLimit || error instanceof ParentRunEnded || error instanceof RunTreeClosed) {
    return error.message;
  }
  return undefined;
}

export type FlowRunFinishInput = ToolCallInput & {
  runId: string;
  status: string;
  output?: unknown;
  error?: unknown;
  startedAt: string;
};

/** flow.run, second half: the child run's outcome, recorded and worded for the model. */
export async function agentFinishFlowRun(
  deps: Pick<AgentActivityContext, "prisma" | "clock" | "seal" | "blobs">,
  input: FlowRunFinishInput,
): Promise<ToolCallResult> {
  const output = await deps.blobs.resolve(input.output);
  const body = { run_id: input.runId, status: input.status, output: output ?? null, error: input.error ?? null };
  const result: ToolCallResult = { content: asContent(body), isError: input.status !== "success" };
  await recordAgentStep(deps, {
    agentRunId: input.agentRunId,
    number: input.number,
    kind: "tool",
    name: "flow.run",
    input: { id: input.call.id, arguments: input.call.arguments },
    output: { run_id: input.runId, status: input.status },
    error: result.isError ? result.content : undefined,
    startedAt: new Date(input.startedAt),
  });
  return result;
}
