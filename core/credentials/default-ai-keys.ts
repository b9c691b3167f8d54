// A workspace's own key for an AI provider: the ai_provider credential marked default_for it,
// which AI nodes use when they name no credential.
import type { Clock } from "../../lib/clock.js";
import type { PrismaClient } from "../../lib/db.js";
import { recordAudit, type AuditContext } from "../audit/audit-log.js";
import type { AiProvider } from "../ai/providers.js";
import { openSecret, type CredentialKeys } from "./credential-seal.js";
import { credentialView } from "./credential-views.js";
import { createCredential, updateCredential, type SaveCredentialDeps } from "./save-credential.js";

const PROVIDER_LABELS: Record<AiProvider, string> = { openai: "OpenAI", anthropic: "Anthropic" };

/** The workspace's own key for a provider, its secret opened only when asked. */
export async function defaultAiKey(
  { prisma, keys }: { prisma: PrismaClient; keys: CredentialKeys },
  workspaceId: string,
  provider: AiProvider,
) {
  const row = await prisma.credential.findFirst({ where: { workspaceId, defaultFor: provider } });
  return row ? { view: credentialView(row), apiKey: () => openSecret(keys, row).api_key as string } : undefined;
}

/** Stores (or rotates) the workspace's own key for a provider; audited as the credential it is. */
export async function setDefaultAiKey(
  deps: SaveCredentialDeps,
  workspaceId: string,
  userId: string,
  provider: AiProvider,
  apiKey: string,
  audit?: AuditContext,
) {
  const existing = await deps.prisma.credential.findFirst({ where: { workspaceId, defaultFor: provider } });
  if (existing) return updateCredential(deps, workspaceId, userId, existing.id, { data: { api_key: apiKey } }, audit);
  const name = `${PROVIDER_LABELS[provider]} (workspace key)`;
  return createCredential(
    deps,
    workspaceId,
    userId,
    { name, type: "ai_provider", data: { provider, api_key: apiKey } },
    { defaultFor: provider, audit },
  );
}

/** Removes the workspace's own key for a provider (credential.deleted with `audit`); whether there was one. */
export async function removeDefaultAiKey(
  { prisma, clock }: { prisma: PrismaClient; clock: Clock },
  workspaceId: string,
  provider: AiProvider,
  audit?: AuditContext,
) {
  return prisma.$transaction(async (tx) => {
    const found = await tx.credential.findFirst({ where: { workspaceId, defaultFor: provider } });
    const { count } = await tx.credential.deleteMany({ where: { id: found?.id ?? "", workspaceId } });
    const removed = count > 0 ? found : null;
    if (removed && audit)
      await recordAudit(tx, clock, audit, {
        action: "credential.deleted",
        object: { kind: "credential", id: removed.id },
        details: { name: removed.name, type: removed.type },
      });
    return removed !== null;
  });
}
