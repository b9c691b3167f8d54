import type { PrismaClient } from "../../lib/db.js";
import type { AiProvider } from "../ai/providers.js";

/** A reference to a credential from a flow's node, checked when the flow is saved. */
export interface CredentialReference {
  /** Where it is, e.g. `nodes[1].config.credential_id`. */
  path: string;
  id: string;
  /** The types the node accepts. */
  accepts: readonly string[];
  /** An ai_provider credential must hold a key of this provider. */
  provider?: AiProvider;
}

type ReferencedRow = { id: string; type: string; name: string; fields: unknown };

/** The problems of a flow's references: each must name a credential of the workspace, of a type its node accepts. */
export async function checkCredentialReferences(
  prisma: PrismaClient,
  workspaceId: string,
  references: readonly CredentialReference[],
): Promise<Array<{ path: string; message: string }>> {
  if (references.length === 0) return [];
  const rows = await prisma.credential.findMany({
    where: { workspaceId, id: { in: [...new Set(references.map((r) => r.id))] } },
    select: { id: true, type: true, name: true, fields: true },
  });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return references.flatMap((reference) => referenceProblems(reference, byId.get(reference.id)));
}

function referenceProblems(
  { path, id, accepts, provider }: CredentialReference,
  found: ReferencedRow | undefined,
): Array<{ path: string; message: string }> {
  if (!found) return [{ path, message: `no credential "${id}" in this workspace` }];
  if (!accepts.includes(found.type)) {
    return [
      {
        path,
        message: `"${found.name}" is a ${found.type} credential; this node takes ${accepts.join(", ")}`,
      },
    ];
  }
  const held = (found.fields as { provider?: string }).provider;
  if (provider && found.type === "ai_provider" && held !== provider) {
    return [{ path, message: `"${found.name}" holds a key for ${held}, not ${provider}` }];
  }
  return [];
}
