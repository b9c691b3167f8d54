// What a node's execute() is handed as env: the run it is in, the guarded fetch, the sandboxes,
// the models and the API key, the workspace's credentials and stores, and its log.
import { jsonColumn } from "../../../lib/db.js";
import { AI_PROVIDERS, type AiProvider } from "../../../core/ai/language-models.js";
import type { NodeActivityInput } from "../../../core/contracts/run-flow.js";
import type { LogLevel, NodeEnv } from "../../../core/nodes/define-node.js";
import { nodeSandbox } from "../../../core/sandbox/js-sandbox-pool.js";
import { createWorkspaceStores } from "../../../core/stores/workspace-stores.js";
import type { NodeActivityParts } from "./node-parts.js";
import { recordWhenDatabaseAnswers } from "./record-when-database-answers.js";

type EnvParts = Pick<
  NodeActivityParts,
  "prisma" | "clock" | "config" | "seal" | "egress" | "sandbox" | "models" | "nodeCredentials"
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
    ai: parts.models,
    apiKey,
    credentials: parts.nodeCredentials.forWorkspace(args.workspaceId),
    ...createWorkspaceStores(parts, args.workspaceId),
    log: (level, message, data) => writeNodeLog(parts, args, level, message, data),
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
