// A flow's immutable versions: the list, and one version's definition.
import type { PrismaClient } from "../../lib/db.js";
import { findFlow } from "./find-flow.js";
import { FlowVersionNotFound } from "./flow-errors.js";
import { versionAuthors } from "./version-authors.js";

/** The flow's versions, newest first; `before` continues below a version a page showed. */
export async function listFlowVersions(
  prisma: PrismaClient,
  workspaceId: string,
  id: string,
  query: { limit: number; before?: number },
) {
  await findFlow(prisma, workspaceId, id);
  const versions = await prisma.flowVersion.findMany({
    where: { flowId: id, ...(query.before === undefined ? {} : { version: { lt: query.before } }) },
    orderBy: { version: "desc" },
    select: { version: true, createdAt: true, createdBy: true, note: true },
    take: query.limit,
  });
  const authors = await versionAuthors(
    prisma,
    workspaceId,
    versions.map((v) => v.createdBy),
  );
  return versions.map((v) => ({
    version: v.version,
    created_at: v.createdAt.toISOString(),
    created_by: v.createdBy,
    author: (v.createdBy && authors.get(v.createdBy)) ?? null,
    note: v.note,
  }));
}

export async function flowVersion(prisma: PrismaClient, workspaceId: string, id: string, version: number) {
  await findFlow(prisma, workspaceId, id);
  const found = await prisma.flowVersion.findUnique({ where: { flowId_version: { flowId: id, version } } });
  if (!found) throw new FlowVersionNotFound(id, version);
  const authors = await versionAuthors(prisma, workspaceId, [found.createdBy]);
  return {
    flow_id: id,
    version: found.version,
    definition: found.definition,
    created_at: found.createdAt.toISOString(),
    created_by: found.createdBy,
    author: (found.createdBy && authors.get(found.createdBy)) ?? null,
    note: found.note,
  };
}
