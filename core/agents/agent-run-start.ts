// Starting an agent run: its settings resolved and checked, the run recorded, then its agentRun
// workflow started (workflow id = agent run id); the workflow records every step and ends the run.
import { newId } from "../../lib/ids.js";
import { AGENT_RUN_WORKFLOW, type AgentRunInput } from "../contracts/agent-run.js";
import { operatorMemo } from "../contracts/operator-text.js";
import { agentSearchAttributes } from "../contracts/run-flow.js";
import { startWorkflowOrRefusal } from "../engine/temporal-start.js";
import { DomainError } from "../errors.js";
import type { AiProvider } from "../ai/providers.js";
import { MCP_CREDENTIAL_TYPES, type McpServer } from "../contracts/mcp-servers.js";
import { actorId, type Actor } from "../workspaces/actor.js";
import type { AgentContext } from "./agent-context.js";
import { recordAgentRunStart } from "./agent-records.js";
import { findAgentRun, waitForAgentRunEnd } from "./agent-runs.js";
import { approvalToolsProblem, resolveAgentSettings, type AgentRequest } from "./agent-settings.js";

export type AgentStartRequest = AgentRequest & { wait?: number; credential_id?: string };

/** Records an agent run and starts its workflow; with `wait`, answers with the result when it comes in time. */
export async function startAgentRun(context: AgentContext, actor: Actor, body: AgentStartRequest) {
  const { prisma, clock, seal, config } = context;
  const workspaceId = actor.workspace.workspaceId;
  const settings = resolveAgentSettings(body, {
    provider: config.AI_DEFAULT_PROVIDER,
    model: config.AI_DEFAULT_MODEL,
  });
  const problem = approvalToolsProblem(settings);
  if (problem) throw new DomainError("invalid", "validation_failed", problem);
  if (body.credential_id) await checkProviderCredential(context, workspaceId, body.credential_id, settings.provider);
  await checkMcpCredentials(context, workspaceId, settings.mcpServers);
  const id = newId("agr");
  const recorded = await recordAgentRunStart(
    { prisma, clock, seal },
    { id, workspaceId, settings, createdBy: actorId(actor) },
  );
  // The credential travels by id: the worker opens it for each model call.
  const workflowInput = body.credential_id ? { ...recorded, credentialId: body.credential_id } : recorded;
  await startAgentWorkflow(context, workflowInput);
  const run = body.wait
    ? await waitForAgentRunEnd(context, workspaceId, id, body.wait)
    : await findAgentRun(context, workspaceId, id);
  return { run, ended: run.status !== "running" };
}

/** A credential of the workspace holding a key of `provider`, or a 400 that says what it is instead. */
async function checkProviderCredential(
  { credentials }: Pick<AgentContext, "credentials">,
  workspaceId: string,
  credentialId: string,
  provider: AiProvider,
) {
  const problems = await credentials.checkReferences(workspaceId, [
    { path: "body.credential_id", id: credentialId, accepts: ["ai_provider"], provider },
  ]);
  if (problems.length > 0) {
    throw new DomainError("invalid", "validation_failed", `credential_id: ${problems[0]!.message}`, {
      details: problems,
    });
  }
}

/** Each MCP server's credential is one of the workspace's, of a type a server's requests carry; else a 400. */
async function checkMcpCredentials(
  { credentials }: Pick<AgentContext, "credentials">,
  workspaceId: string,
  servers: readonly McpServer[],
) {
  const references = servers.flatMap((server, i) =>
    server.credentialId
      ? [{ path: `body.mcp_servers[${i}].credential_id`, id: server.credentialId, accepts: MCP_CREDENTIAL_TYPES }]
      : [],
  );
  const problems = await credentials.checkReferences(workspaceId, references);
  if (problems.length > 0) {
    throw new DomainError("invalid", "validation_failed", `${problems[0]!.path}: ${problems[0]!.message}`, {
      details: problems,
    });
  }
}

/**
 * Starts the run's workflow. A refusal ends the record as failed (not_started); an unknown
 * outcome (Temporal unreachable mid-start) leaves it running: the reconciler ends it if its
 * workflow never started, and leaves it if it did. Either way the caller gets the error.
 */
async function startAgentWorkflow(context: AgentContext, input: AgentRunInput): Promise<void> {
  const { prisma, clock, config } = context;
  const id = input.agentRunId;
  const refusal = await startWorkflowOrRefusal({
    temporal: context.temporal,
    prepareNamespace: context.prepareNamespace,
    workflowId: id,
    start: (starter) =>
      starter.workflow.start(AGENT_RUN_WORKFLOW, {
        workflowId: id,
        // One execution per record: a start that reaches Temporal late never runs it twice.
        workflowIdReusePolicy: "REJECT_DUPLICATE",
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        args: [input],
        typedSearchAttributes: agentSearchAttributes(input.workspaceId),
        // Its workspace's share of the task queue, as flow runs (core/contracts/run-priority.ts).
        priority: { fairnessKey: input.workspaceId },
        memo: operatorMemo({ agent_id: input.agentId }),
      }),
    what: "The agent run could not be started",
    extra: { agent_run_id: id },
    logger: context.logger,
  });
  if (!refusal) return;
  if (!refusal.refused) throw refusal;
  await prisma.agentRun.updateMany({
    where: { id, status: "running" },
    data: {
      status: "failed",
      reason: "not_started",
      error: { message: refusal.message },
      finishedAt: clock.now(),
      durationMs: 0,
    },
  });
  throw refusal;
}
