import type { AgentStart, NodeActivityInput } from "../../../core/contracts/run-flow.js";
import type { AiAgentConfig } from "../../../core/nodes/ai-agent/ai-agent.node.js";
import { startAgent } from "../../../core/agents/agent-node-start.js";
import type { NodeActivityParts } from "./node-parts.js";
import { prepareNode } from "./prepare-node.js";
import { waitingStep } from "./waiting-step.js";

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
