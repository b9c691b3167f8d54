// A model call's usage, written once under the call's identity with its cost at the price of its
// time: the workspace's own price of the model, else the shipped default (prices.ts).
import { derivedId } from "../../lib/ids.js";
import { Prisma, type PrismaClient } from "../../lib/db.js";
import { DEFAULT_PRICES, costOf, priceOf } from "./prices.js";

type Db = Pick<PrismaClient, "modelPrice">;

/** A model call that answered, and where its cost is counted. */
export interface ModelCall {
  /** The call's identity (agentCallId, nodeCallId): a retried call has the same one. */
  id: string;
  workspaceId: string;
  flowId?: string | null;
  runId?: string | null;
  nodeId?: string | null;
  agentRunId?: string | null;
  agentStep?: number | null;
  provider: string;
  model: string;
  usage: { input_tokens: number; output_tokens: number };
  at: Date;
}

/** The usage id of an agent run's model call (its step). */
export const agentCallId = (agentRunId: string, number: number) => derivedId("use", ["agent", agentRunId, number]);

/** The usage id of a node's model call: its run, node, item (when per item) and its place among the node's calls. */
export const nodeCallId = (runId: string, nodeId: string, itemIndex: number | undefined, call: number) =>
  derivedId("use", ["node", runId, nodeId, itemIndex ?? "", call]);

/** The price table of a workspace for a provider: its own entries over the defaults of the same models. */
export async function workspacePrices(db: Db, workspaceId: string, provider: string) {
  const own = await db.modelPrice.findMany({ where: { workspaceId, provider } });
  const ownModels = new Set(own.map((entry) => entry.model));
  return [
    ...own.map((entry) => ({
      provider: entry.provider,
      model: entry.model,
      input_per_mtok: entry.inputPerMtok,
      output_per_mtok: entry.outputPerMtok,
    })),
    ...DEFAULT_PRICES.filter((entry) => entry.provider === provider && !ownModels.has(entry.model)).map((entry) => ({
      ...entry,
      input_per_mtok: new Prisma.Decimal(entry.input_per_mtok),
      output_per_mtok: new Prisma.Decimal(entry.output_per_mtok),
    })),
  ];
}

/** The usage row of a call, priced; written with createMany({ skipDuplicates }) so a retry writes nothing. */
export async function pricedUsage(db: Db, call: ModelCall): Promise<Prisma.ModelUsageCreateManyInput> {
  const price = priceOf(await workspacePrices(db, call.workspaceId, call.provider), call.provider, call.model);
  return {
    id: call.id,
    workspaceId: call.workspaceId,
    flowId: call.flowId ?? null,
    runId: call.runId ?? null,
    nodeId: call.nodeId ?? null,
    agentRunId: call.agentRunId ?? null,
    agentStep: call.agentStep ?? null,
    provider: call.provider,
    model: call.model,
    inputTokens: call.usage.input_tokens,
    outputTokens: call.usage.output_tokens,
    inputPerMtok: price?.input_per_mtok ?? null,
    outputPerMtok: price?.output_per_mtok ?? null,
    cost: price ? costOf(price, call.usage) : null,
    createdAt: call.at,
  };
}

/** Writes a call's usage once; `recorded` is false for a repeat (a retried call). */
export async function recordModelUsage(
  db: Db & Pick<PrismaClient, "modelUsage">,
  call: ModelCall,
): Promise<{ recorded: boolean; cost: number | null }> {
  const row = await pricedUsage(db, call);
  const { count } = await db.modelUsage.createMany({ data: [row], skipDuplicates: true });
  return { recorded: count === 1, cost: row.cost === null ? null : Number(row.cost) };
}
