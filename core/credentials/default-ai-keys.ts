// A workspace's own key for an AI provider: the ai_provider credential marked default_for it,
// which AI nodes use when they name no credential.
import type { PrismaClient } from "../../lib/db.js";
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

/** Stores (or rotates) the workspace's own key for a provider. */
export async function setDefaultAiKey(
  deps: SaveCredentialDeps,
  workspaceId: string,
  userId: string,
  provider: AiProvider,
  apiKey: string,
) {
  const existing = await deps.prisma.credential.findFirst({ where: { workspaceId, defaultFor: provider } });
  if (existing) return updateCredential(deps, workspaceId, userId, existing.id, { data: { api_key: apiKey } });
  const name = `${PROVIDER_LABELS[provider]} (workspace key)`;
  return createCredential(
    deps,
    workspaceId,
    userId,
    { name, type: "ai_provider", data: { provider, api_key: apiKey } },
    { defaultFor: provider },
  );
}

export async function removeDefaultAiKey(prisma: PrismaClient, workspaceId: string, provider: AiProvider) {
  const { count } = await prisma.credential.deleteMany({ where: { workspaceId, defaultFor: provider } });
  return count > 0;
}
