// Reading a workspace's credentials: one, a page, and the flows that name one.
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import { CredentialNotFound } from "../errors.js";
import type { CredentialType } from "../contracts/credential-types.js";
import { credentialView, type CredentialRow, type CredentialView } from "./credential-views.js";

export async function findCredential(prisma: PrismaClient, workspaceId: string, id: string): Promise<CredentialRow> {
  const row = await prisma.credential.findFirst({ where: { id, workspaceId } });
  if (!row) throw new CredentialNotFound();
  return row;
}

/** A page of the workspace's credentials in the order they were created (`after` the last one shown). */
export async function listCredentials(
  prisma: PrismaClient,
  workspaceId: string,
  query: { types?: readonly CredentialType[]; limit: number; after?: { createdAt: Date; id: string } },
): Promise<CredentialView[]> {
  const rows = await prisma.credential.findMany({
    where: {
      workspaceId,
      ...(query.types ? { type: { in: [...query.types] } } : {}),
      ...(query.after
        ? {
            OR: [
              { createdAt: { gt: query.after.createdAt } },
              { createdAt: query.after.createdAt, id: { gt: query.after.id } },
            ],
          }
        : {}),
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: query.limit,
  });
  return rows.map(credentialView);
}

/** The flows of the workspace whose current definition names the credential. */
export async function flowsUsing(prisma: PrismaClient, workspaceId: string, id: string) {
  // Ids are 96 random bits: their quoted text in a definition is a reference to them.
  return sqlQuery<{ id: string; name: string }>(
    prisma,
    // A flow's draft counts: publishing it would need the credential.
    Prisma.sql`SELECT f.id, f.name FROM flows f
               WHERE f.workspace_id = ${workspaceId}
                 AND (strpos(f.definition::text, ${JSON.stringify(id)}) > 0
                   OR EXISTS (SELECT 1 FROM flow_versions v
                              WHERE v.flow_id = f.id AND v.version = f.draft_version
                                AND strpos(v.definition::text, ${JSON.stringify(id)}) > 0))
               ORDER BY f.name, f.id LIMIT 100`,
  );
}
