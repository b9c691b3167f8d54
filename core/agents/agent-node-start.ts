// The start of an ai.agent step, the node's own behaviour (the workflow then runs the agent as a
// child workflow and the activity records the step around this): the agent run's settings from
// the rendered config over its preset and the server's defaults, recorded once per step attempt.
import type { JsonSeal } from "../../lib/crypto/sealed-json.js";
import { derivedId } from "../../lib/ids.js";
import type { Clock } from "../../lib/clock.js";
import type { PrismaClient } from "../../lib/db.js";
import { recordAgentRunStart } from "./agent-records.js";
import { approvalToolsProblem, resolveAgentSettings } from "./agent-settings.js";
import type { AiProvider } from "../ai/providers.js";
import type { AgentRunInput } from "../contracts/agent-run.js";
import { ParentRunEnded, placeInRunTree, RunTreeLimit, type ChildRunsDeps } from "../runs/start/child-runs.js";
import { NodeConfigError, NodeError } from "../nodes/node-error.js";
import type { AiAgentConfig } from "../nodes/ai-agent/ai-agent.node.js";

/** The agent run's id derives from the step attempt: a repeated call records nothing new. */
export const agentRunIdOf = (runId: string, nodeId: string, attempt: number) =>
  derivedId("agr", [runId, nodeId, attempt]);

export interface AgentStartDeps {
  prisma: PrismaClient;
  clock: Clock;
  /** How the agent run's record stores its instructions (sealed under SVC_ENCRYPTION_KEY when set). */
  seal: JsonSeal;
  defaults: { provider: AiProvider; model: string };
  limits: ChildRunsDeps["limits"];
}

export async function startAgent(
  { prisma, clock, seal, defaults, limits }: AgentStartDeps,
  step: { runId: string; nodeId: string; workspaceId: string; attempt: number; flowId?: string },
  config: AiAgentConfig,
): Promise<AgentRunInput> {
  const settings = resolveAgentSettings(
    {
      agent: config.agent,
      instructions: config.instructions,
      provider: config.provider,
      model: config.model,
      system: config.system,
      tools: config.tools,
      approval_tools: config.approval_tools,
      ...(config.mcp_servers ? { mcp_servers: config.mcp_servers } : {}),
      ...(config.fallbacks ? { fallbacks: config.fallbacks } : {}),
      limits: { max_steps: config.max_steps, max_tokens: config.max_tokens, timeout_ms: config.timeout_ms },
    },
    defaults,
  );
  const problem = approvalToolsProblem(settings);
  if (problem) throw new NodeConfigError(step.nodeId, problem);
  // The agent run sits one level below its run: its flow.run calls one more (core/runs/start/child-runs.ts).
  // Placed and recorded in one transaction, under its tree's lock: a cancel that closed the tree
  // comes before (RunTreeClosed, left as it is: the node is cancelled with its run) or after.
  const input = await prisma
    .$transaction(async (tx) => {
      const place = await placeInRunTree(
        tx,
        { limits },
        { workspaceId: step.workspaceId, parent: { runId: step.runId, relation: "child" }, adding: 0 },
      );
      return recordAgentRunStart(
        { prisma: tx, clock, seal },
        {
          id: agentRunIdOf(step.runId, step.nodeId, step.attempt),
          workspaceId: step.workspaceId,
          settings,
          parentRunId: step.runId,
          ...(step.flowId ? { flowId: step.flowId } : {}),
          parentNodeId: step.nodeId,
          tree: { rootRunId: place.rootRunId, depth: place.depth, inErrorFlow: place.inErrorFlow },
        },
      );
    })
    .catch((error: unknown) => {
      if (error instanceof RunTreeLimit || error instanceof ParentRunEnded) {
        throw new NodeError(error.message, { retryable: false, details: { code: error.code } });
      }
      throw error;
    });
  // Its id only: the worker opens it at each model call.
  return config.credential_id ? { ...input, credentialId: config.credential_id } : input;
}
