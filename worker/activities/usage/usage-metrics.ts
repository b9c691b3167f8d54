import type { Prisma } from "../../../lib/db.js";
import type { WorkerMetrics } from "../../../lib/operator-metrics.js";

export type UsageMetrics = Pick<WorkerMetrics, "tokens" | "cost">;

/** Counts a model call's tokens and cost in the operator metrics (once: when its usage row was written). */
export function countUsage(metrics: UsageMetrics | undefined, row: Prisma.ModelUsageCreateManyInput): void {
  if (!metrics) return;
  const labels = { workspace: row.workspaceId, flow: row.flowId ?? "", model: `${row.provider}/${row.model}` };
  metrics.tokens.inc({ ...labels, direction: "input" }, row.inputTokens);
  metrics.tokens.inc({ ...labels, direction: "output" }, row.outputTokens);
  if (row.cost !== null && row.cost !== undefined) metrics.cost.inc(labels, Number(row.cost));
}
