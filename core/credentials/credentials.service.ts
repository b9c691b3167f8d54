// A workspace's credentials: stored sealed (credential-seal.ts), shown without their secrets,
// opened only for the worker to apply them to a call. This file only wires: each behaviour is a
// function in a file of its own beside it.
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import type { PrismaClient } from "../../lib/db.js";
import type { AiProvider } from "../ai/providers.js";
import { CredentialInUse } from "../errors.js";
import { recordAudit, type AuditContext } from "../audit/audit-log.js";
import { checkCredentialReferences, type CredentialReference } from "./check-credential-references.js";
import { findCredential, flowsUsing, listCredentials } from "./credential-reads.js";
import { credentialKeys } from "./credential-seal.js";
import type { CredentialType } from "../contracts/credential-types.js";
import { credentialView, type CredentialView } from "./credential-views.js";
import { defaultAiKey, removeDefaultAiKey, setDefaultAiKey } from "./default-ai-keys.js";
import { openCredential } from "./open-credential.js";
import { reencryptCredentials } from "./reencrypt-credentials.js";
import { createCredential, updateCredential, type CredentialChange, type NewCredential } from "./save-credential.js";

export { LEGACY_AI_KEY_ID } from "./credential-seal.js";
export { credentialView, type CredentialView } from "./credential-views.js";
export type { CredentialReference } from "./check-credential-references.js";
export type { OpenedCredential } from "./open-credential.js";
export type { CredentialChange, NewCredential } from "./save-credential.js";

export interface CredentialsServiceDeps {
  prisma: PrismaClient;
  clock: Clock;
  config: Pick<Config, "SVC_ENCRYPTION_KEY" | "AI_KEYS_SECRET">;
}

/** Deletes a credential; while flows name it, only with `force` (their runs then fail at that node). */
async function removeCredential(
  { prisma, clock }: { prisma: PrismaClient; clock: Clock },
  workspaceId: string,
  id: string,
  options: { force?: boolean; audit?: AuditContext } = {},
): Promise<void> {
  const row = await findCredential(prisma, workspaceId, id);
  const flows = await flowsUsing(prisma, workspaceId, id);
  if (!options.force && flows.length > 0) throw new CredentialInUse(flows);
  const { audit } = options;
  await prisma.$transaction(async (tx) => {
    const { count } = await tx.credential.deleteMany({ where: { id, workspaceId } });
    if (audit && count > 0)
      await recordAudit(tx, clock, audit, {
        action: "credential.deleted",
        object: { kind: "credential", id },
        details: { name: row.name, type: row.type, forced: flows.length > 0 },
      });
  });
}

export function createCredentialsService({ prisma, clock, config }: CredentialsServiceDeps) {
  const keys = credentialKeys(config);
  const parts = { prisma, clock, keys };
  return {
    /** Whether this server can seal new values (SVC_ENCRYPTION_KEY is set). */
    canStore: keys.ring !== undefined,
    list: (
      workspaceId: string,
      query: { types?: readonly CredentialType[]; limit: number; after?: { createdAt: Date; id: string } },
    ) => listCredentials(prisma, workspaceId, query),
    async get(workspaceId: string, id: string): Promise<CredentialView> {
      return credentialView(await findCredential(prisma, workspaceId, id));
    },
    create: (
      workspaceId: string,
      userId: string,
      input: NewCredential,
      options?: { defaultFor?: AiProvider; audit?: AuditContext },
    ) => createCredential(parts, workspaceId, userId, input, options),
    update: (workspaceId: string, userId: string, id: string, change: CredentialChange, audit?: AuditContext) =>
      updateCredential(parts, workspaceId, userId, id, change, audit),
    remove: (workspaceId: string, id: string, options?: { force?: boolean; audit?: AuditContext }) =>
      removeCredential({ prisma, clock }, workspaceId, id, options),
    flowsUsing: (workspaceId: string, id: string) => flowsUsing(prisma, workspaceId, id),
    checkReferences: (workspaceId: string, references: readonly CredentialReference[]) =>
      checkCredentialReferences(prisma, workspaceId, references),
    open: (workspaceId: string, id: string) => openCredential(parts, workspaceId, id),
    defaultAiKey: (workspaceId: string, provider: AiProvider) => defaultAiKey(parts, workspaceId, provider),
    setDefaultAiKey: (
      workspaceId: string,
      userId: string,
      provider: AiProvider,
      apiKey: string,
      audit?: AuditContext,
    ) => setDefaultAiKey(parts, workspaceId, userId, provider, apiKey, audit),
    removeDefaultAiKey: (workspaceId: string, provider: AiProvider, audit?: AuditContext) =>
      removeDefaultAiKey({ prisma, clock }, workspaceId, provider, audit),
    reencryptAll: (options?: { batchSize?: number }) => reencryptCredentials(parts, options),
  };
}

export type CredentialsService = ReturnType<typeof createCredentialsService>;
