// A run's per-item nodes as the run page shows them: each node's progress, and its items page by
// page (records/item-records.ts writes them).
import type { JsonSeal } from "../../../lib/crypto/sealed-json.js";
import type { PrismaClient } from "../../../lib/db.js";
import type { ItemError } from "../records/item-records.js";

/** A per-item node's progress, as the run page shows it while the node runs. */
export interface ItemsProgressView {
  node_id: string;
  total: number;
  done: number;
  failed: number;
  updated_at: string;
}

/** An item as the run page lists it: its result or error (a large result previewed). */
export interface ItemView {
  index: number;
  status: "success" | "failed";
  result: unknown;
  error: ItemError | null;
  attempt: number;
  finished_at: string;
}

/** The progress of each of the run's per-item nodes (the run is the workspace's: the caller checked). */
export async function itemsProgress(prisma: PrismaClient, runId: string): Promise<ItemsProgressView[]> {
  const rows = await prisma.runItemSet.findMany({ where: { runId }, orderBy: { updatedAt: "asc" } });
  return rows.map((row) => ({
    node_id: row.nodeId,
    total: row.total,
    done: row.done,
    failed: row.failed,
    updated_at: row.updatedAt.toISOString(),
  }));
}

/** A page of one node's items in index order, after `afterIndex`; `limit + 1` rows read, so the caller knows of a next page. */
export async function itemsPage(
  { prisma, seal }: { prisma: PrismaClient; seal: JsonSeal },
  runId: string,
  nodeId: string,
  query: { afterIndex?: number; limit: number; status?: "success" | "failed"; shown: (value: unknown) => unknown },
): Promise<ItemView[]> {
  const rows = await prisma.runItem.findMany({
    where: {
      runId,
      nodeId,
      ...(query.afterIndex === undefined ? {} : { index: { gt: query.afterIndex } }),
      ...(query.status ? { status: query.status } : {}),
    },
    orderBy: { index: "asc" },
    take: query.limit + 1,
  });
  return rows.map((row) => ({
    index: row.index,
    status: row.status,
    result: row.status === "success" ? query.shown(seal.open(row.result)) : null,
    error: row.status === "failed" ? (seal.open(row.error) as ItemError) : null,
    attempt: row.attempt,
    finished_at: row.finishedAt.toISOString(),
  }));
}
