// Which workspace a Temporal workflow of the service belongs to, from its id: a run (run_…), an
// agent run (agr_…), a webhook delivery (whd_…) or a schedule's fire (scheduled-<flow id>, with
// the time Temporal appends to each fire). The codec endpoint decodes a sealed payload only for
// members of the workspace of the workflow it belongs to. Other ids belong to no workspace.
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";

const SCHEDULE_FIRE = /^scheduled-(wf_[0-9a-f]+)(?:-|$)/;

/** The workspace of each workflow id that has one. */
export async function workspacesOfWorkflows(
  prisma: PrismaClient,
  workflowIds: readonly string[],
): Promise<Map<string, string>> {
  const ids = [...new Set(workflowIds)];
  const byPrefix = (prefix: string) => ids.filter((id) => id.startsWith(prefix));
  const fires = ids.flatMap((id) => {
    const flowId = SCHEDULE_FIRE.exec(id)?.[1];
    return flowId ? [{ id, flowId }] : [];
  });
  const lookups = [
    ["runs", byPrefix("run_")],
    ["agent_runs", byPrefix("agr_")],
    ["webhook_deliveries", byPrefix("whd_")],
    ["flows", [...new Set(fires.map((fire) => fire.flowId))]],
  ] as const;
  const queries = lookups
    .filter(([, keys]) => keys.length > 0)
    .map(
      ([table, keys]) =>
        Prisma.sql`SELECT id, workspace_id FROM ${Prisma.raw(table)} WHERE id IN (${Prisma.join(keys)})`,
    );
  if (queries.length === 0) return new Map();
  const rows = await sqlQuery<{ id: string; workspace_id: string }>(prisma, Prisma.join(queries, " UNION ALL "));
  const found = new Map(rows.map((row) => [row.id, row.workspace_id]));
  const workspaces = new Map(ids.flatMap((id) => (found.has(id) ? [[id, found.get(id)!] as const] : [])));
  for (const fire of fires) {
    const workspaceId = found.get(fire.flowId);
    if (workspaceId) workspaces.set(fire.id, workspaceId);
  }
  return workspaces;
}
