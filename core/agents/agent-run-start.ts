// Starting an agent run: its settings resolved and checked, the run recorded, then its agentRun
// workflow started (workflow id = agent run id); the workflow records every step and ends the run.
import { newId } from "../../lib/ids.js";
import { AGENT_RUN_WORKFLOW, type AgentRunInput } from "../contracts/agent-run.js";
import { operatorMemo } from "../contracts/operator-text.js";
import { agentSearchAttributes } from "../contracts/run-flow.js";
import { startWorkflowOrRefusal } from "../engine/temporal-start.js";
import { DomainError } from "../errors.js";
import type { AiProvider } from "../ai/providers.js";
import type { CredentialReference } from "../credentials/credentials.service.js";
import type { ModelFallback } from "../ai/model-fallbacks.js";
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
  await checkCredentials(context, workspaceId, requestCredentials(body, settings));
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

/**
 * The credentials a request names, each with the types it accepts: its model's key, each MCP
 * server's (sent with that server's requests) and each fallback's (a key of that fallback's provider).
 */
function requestCredentials(
  body: AgentStartRequest,
  settings: { provider: AiProvider; mcpServers: readonly McpServer[]; fallbacks: readonly ModelFallback[] },
): CredentialReference[] {
  const model: CredentialReference[] = body.credential_id
    ? [{ path: "body.credential_id", id: body.credential_id, accepts: ["ai_provider"], provider: settings.provider }]
    : [];
  const servers = settings.mcpServers.flatMap((server, i) =>
    server.credentialId
      ? [{ path: `body.mcp_servers[${i}].credential_id`, id: server.credentialId, accepts: MCP_CREDENTIAL_TYPES }]
      : [],
  );
  const fallbacks = settings.fallbacks.flatMap(({ credential_id: id, provider }, i) =>
    id ? [{ path: `body.fallbacks[${i}].credential_id`, id, accepts: ["ai_provider"], provider }] : [],
  );
  return [...model, ...servers, ...fallbacks];
}

/** Each named credential is one of the workspace's, of a type its place accepts; else a 400 naming the first that is not. */
async function checkCredentials(
  { credentials }: Pick<AgentContext, "credentials">,
  workspaceId: string,
  references: CredentialReference[],
) {
  const problems = await credentials.checkReferences(workspaceId, references);
  if (problems.length > 0) {
    const first = problems[0]!;
    throw new DomainError("invalid", "validation_failed", `${first.path.replace(/^body\./, "")}: ${first.message}`, {
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
