// The starts of the steps that then wait in the workflow: a delay (its duration rendered), a wait
// (recorded, core/waits/wait-start.ts), an ai.agent node's agent run (core/agents/agent-node-start.ts),
// and a loop's or flow.call's child runs (core/runs/start/loop-runs.ts). Each is recorded as
// running first; a failure is recorded with the attempt before it is thrown.
import { Context, log } from "@temporalio/activity";
import type { AgentStart, DelayStart, LoopStart, NodeActivityInput } from "../../../core/contracts/run-flow.js";
import {
  definitionOf,
  type NodeActivityParts,
  recordWhenDatabaseAnswers,
  stepErrorOf,
  toFailure,
} from "./node-parts.js";
import { prepareNode } from "./prepare-node.js";
import type { WaitStart } from "../../../core/contracts/waits.js";
import type { WaitConfig } from "../../../core/nodes/wait/wait.node.js";
import { startWait } from "../../../core/waits/wait-start.js";
import type { AiAgentConfig } from "../../../core/nodes/ai-agent/ai-agent.node.js";
import { startAgent } from "../../../core/agents/agent-node-start.js";
import { type FlowCallConfig, flowCallNode } from "../../../core/nodes/flow-call/flow-call.node.js";
import type { LoopConfig } from "../../../core/nodes/loop/loop.node.js";
import { startFlowCall, startLoop } from "../../../core/runs/start/loop-runs.js";

/**
 * The start of a step that then waits in the workflow (delay, wait, loop, agent): recorded as running,
 * then `body`; a failure is recorded with the attempt before it is thrown.
 */
export async function waitingStep<T>(
  { clock, steps }: Pick<NodeActivityParts, "clock" | "steps">,
  args: NodeActivityInput,
  body: (attempt: number) => Promise<T>,
): Promise<T> {
  const number = Context.current().info.attempt;
  const key = { runId: args.runId, nodeId: args.nodeId, type: args.type };
  const startedAt = clock.now();
  await recordWhenDatabaseAnswers(() => steps.start(key, number, startedAt));
  try {
    return await body(number);
  } catch (error) {
    const failure = toFailure(error);
    await recordWhenDatabaseAnswers(() => steps.fail(key, number, startedAt, stepErrorOf(failure)));
    throw failure;
  }
}

/** Starts a delay step: renders its duration; the workflow then sleeps on a durable timer. */
export function startDelayStep(
  parts: Pick<NodeActivityParts, "clock" | "steps" | "blobs" | "nodes">,
  args: NodeActivityInput,
): Promise<DelayStart> {
  return waitingStep(parts, args, async (number) => {
    const { config } = await prepareNode(parts, args);
    return { attempt: number, durationMs: definitionOf(parts.nodes, args.type).waitMs!(config) };
  });
}

/**
 * Starts a wait step (core/waits/wait-start.ts): the wait, recorded; the workflow then
 * waits for its decision (an update) or its timeout.
 */
export function startWaitStep(
  parts: Pick<NodeActivityParts, "prisma" | "clock" | "seal" | "steps" | "blobs" | "nodes">,
  args: NodeActivityInput,
): Promise<WaitStart> {
  const { prisma, clock, seal } = parts;
  return waitingStep(parts, args, async (number) => {
    const { config } = await prepareNode(parts, args);
    const start = await startWait({ prisma, clock, seal }, { ...args, attempt: number }, config as WaitConfig);
    return { attempt: number, ...start };
  });
}

/** Starts an ai.agent step (core/agents/agent-node-start.ts): the agent run, recorded. */
export function startAgentStep(
  parts: Pick<NodeActivityParts, "prisma" | "clock" | "seal" | "config" | "steps" | "blobs" | "nodes">,
  args: NodeActivityInput,
): Promise<AgentStart> {
  const { prisma, clock, seal, config: settings } = parts;
  const defaults = { provider: settings.AI_DEFAULT_PROVIDER, model: settings.AI_DEFAULT_MODEL };
  return waitingStep(parts, args, async (number) => {
    const { config } = await prepareNode(parts, args);
    const agent = await startAgent(
      { prisma, clock, seal, defaults, limits: settings },
      { ...args, attempt: number },
      config as AiAgentConfig,
    );
    return { attempt: number, agent };
  });
}

/** Starts a loop or flow.call step (core/runs/start/loop-runs.ts): one child run per item, recorded. */
export function startLoopStep(
  parts: Pick<NodeActivityParts, "prisma" | "clock" | "seal" | "config" | "steps" | "blobs" | "nodes" | "metrics">,
  args: NodeActivityInput,
): Promise<LoopStart> {
  const { prisma, clock, seal, nodes, config: limits, metrics } = parts;
  return waitingStep(parts, args, async (number) => {
    const { config, input } = await prepareNode(parts, args);
    const taskQueue = Context.current().info.taskQueue;
    const warn = (message: string, fields: Record<string, string>) => log.warn(message, fields);
    const loopDeps = { prisma, clock, seal, nodes, limits, taskQueue, warn };
    const { start, recorded } =
      args.type === flowCallNode.type
        ? await startFlowCall(loopDeps, { ...args, input }, config as FlowCallConfig)
        : await startLoop(loopDeps, args, config as LoopConfig);
    // A repeated attempt finds the children recorded already, events included.
    if (recorded > 0) metrics?.runsStarted.inc({ trigger: start.trigger ?? "loop" }, recorded);
    return { attempt: number, ...start };
  });
}
