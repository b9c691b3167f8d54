// What a node's execute() is handed as env: the run it is in, the guarded fetch, the sandboxes,
// the models and the API key, the workspace's credentials and stores, and its log.
import { Context } from "@temporalio/activity";
import { jsonColumn } from "../../../lib/db.js";
import { AI_PROVIDERS, type AiProvider, type LanguageModels } from "../../../core/ai/language-models.js";
import type { NodeActivityInput } from "../../../core/contracts/run-flow.js";
import type { LogLevel, NodeEnv } from "../../../core/nodes/define-node.js";
import { nodeSandbox } from "../../../core/sandbox/js-sandbox-pool.js";
import { createWorkspaceStores } from "../../../core/stores/workspace-stores.js";
import { nodeCallId, pricedUsage } from "../../../core/usage/usage-records.js";
import { countUsage } from "../usage/usage-metrics.js";
import { type NodeActivityParts, recordWhenDatabaseAnswers } from "./node-parts.js";

type EnvParts = Pick<
  NodeActivityParts,
  "prisma" | "clock" | "config" | "seal" | "egress" | "sandbox" | "models" | "nodeCredentials" | "metrics"
>;

export function nodeEnvFor(
  parts: EnvParts,
  args: NodeActivityInput,
  attempt: number,
  signal: AbortSignal,
  apiKey?: string,
): NodeEnv {
  return {
    run: { id: args.runId, flowId: args.flowId, workspaceId: args.workspaceId, nodeId: args.nodeId, attempt },
    signal,
    fetch: parts.egress.fetch,
    sandbox: nodeSandbox(parts.sandbox, args.workspaceId, signal),
    ai: meteredModels(parts, args),
    apiKey,
    aiKey: (provider, credentialId) => parts.nodeCredentials.aiKey(args.workspaceId, provider, credentialId),
    lastAttempt: isLastAttempt(attempt),
    credentials: parts.nodeCredentials.forWorkspace(args.workspaceId),
    ...createWorkspaceStores(parts, args.workspaceId),
    log: (level, message, data) => writeNodeLog(parts, args, level, message, data),
  };
}

/**
 * Whether a failure of this attempt ends the node: its retry policy's attempts are spent. Outside
 * an activity (a node tried alone from the editor) there is one attempt.
 */
function isLastAttempt(attempt: number): boolean {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return true;
  }
  const max = context.info.retryPolicy?.maximumAttempts;
  return max !== undefined && max > 0 && attempt >= max;
}

/**
 * The models as a node calls them: each call that answers is written to the usage table under the
 * call's identity (its run, node, item and place among the node's calls: a retried attempt repeats
 * it and is counted once), priced, and counted in the operator metrics.
 */
export function meteredModels(
  { prisma, clock, models, metrics }: Pick<EnvParts, "prisma" | "clock" | "models" | "metrics">,
  args: Pick<NodeActivityInput, "runId" | "workspaceId" | "flowId" | "nodeId">,
  itemIndex?: number,
): Pick<LanguageModels, "chat"> {
  let calls = 0;
  return {
    async chat(request) {
      const call = calls++;
      const answer = await models.chat(request);
      const row = await pricedUsage(prisma, {
        id: nodeCallId(args.runId, args.nodeId, itemIndex, call),
        workspaceId: args.workspaceId,
        flowId: args.flowId || null,
        runId: args.runId,
        nodeId: args.nodeId,
        provider: request.provider,
        model: request.model,
        usage: answer.usage,
        at: clock.now(),
      });
      const { count } = await recordWhenDatabaseAnswers(() =>
        prisma.modelUsage.createMany({ data: [row], skipDuplicates: true }),
      );
      if (count === 1) countUsage(metrics, row);
      return answer;
    },
  };
}

/**
 * One entry of a node's log, sealed. It waits out a database outage within the attempt's time, as
 * the step's own records do: a log entry must not use up the node's attempts (log, debug, code's console).
 */
async function writeNodeLog(
  { prisma, seal }: Pick<NodeActivityParts, "prisma" | "seal">,
  args: NodeActivityInput,
  level: LogLevel,
  message: string,
  data?: unknown,
): Promise<void> {
  const entry = {
    workspaceId: args.workspaceId,
    runId: args.runId,
    nodeId: args.nodeId,
    level,
    message: seal.sealText(String(message).slice(0, 10_000)),
    data: data === undefined ? undefined : jsonColumn(seal.seal(JSON.parse(JSON.stringify(data)))),
  };
  await recordWhenDatabaseAnswers(() => prisma.logEntry.create({ data: entry }));
}

/**
 * The API key of the provider a node's config names: its ai_provider credential when it names
 * one, else the workspace's own, else the server's.
 */
export const apiKeyFor = async (
  { nodeCredentials }: Pick<NodeActivityParts, "nodeCredentials">,
  workspaceId: string,
  config: Record<string, unknown>,
): Promise<string | undefined> =>
  AI_PROVIDERS.includes(config.provider as AiProvider)
    ? nodeCredentials.aiKey(
        workspaceId,
        config.provider as AiProvider,
        typeof config.credential_id === "string" ? config.credential_id : undefined,
      )
    : undefined;
