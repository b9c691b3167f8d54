// Provider keys: a workspace's own (its ai_provider credential for that provider, sealed with
// SVC_ENCRYPTION_KEY, never returned), else the server's (OPENAI_API_KEY, ANTHROPIC_API_KEY).
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import type { PrismaClient } from "../../lib/db.js";
import type { AuditContext } from "../audit/audit-log.js";
import { createCredentialsService, type CredentialsService } from "./credentials.service.js";
import type { AiProvider } from "../ai/language-models.js";

export function createApiKeyStore({
  prisma,
  clock,
  config,
  credentials = createCredentialsService({ prisma, clock, config }),
}: {
  prisma: PrismaClient;
  clock: Clock;
  config: Pick<Config, "OPENAI_API_KEY" | "ANTHROPIC_API_KEY" | "SVC_ENCRYPTION_KEY" | "AI_KEYS_SECRET">;
  /** The workspace's credentials; built from the config when absent. */
  credentials?: CredentialsService;
}) {
  const serverKey = (provider: AiProvider) =>
    (provider === "openai" ? config.OPENAI_API_KEY : config.ANTHROPIC_API_KEY) || undefined;

  return {
    /** Whether workspaces can store keys (SVC_ENCRYPTION_KEY is set). */
    canStore: credentials.canStore,

    async set(workspaceId: string, provider: AiProvider, apiKey: string, userId: string, audit?: AuditContext) {
      const stored = await credentials.setDefaultAiKey(workspaceId, userId, provider, apiKey, audit);
      return { last4: stored.hint?.slice(1) ?? null, updatedAt: new Date(stored.updated_at) };
    },

    remove: (workspaceId: string, provider: AiProvider, audit?: AuditContext): Promise<boolean> =>
      credentials.removeDefaultAiKey(workspaceId, provider, audit),

    /** What the workspace may see: which providers have a key, and its last four characters. */
    async describe(workspaceId: string) {
      return Promise.all(
        (["openai", "anthropic"] as const).map(async (provider) => {
          const own = (await credentials.defaultAiKey(workspaceId, provider))?.view;
          return {
            provider,
            source: own ? ("workspace" as const) : serverKey(provider) ? ("server" as const) : null,
            last4: own?.hint?.slice(1) ?? null,
            updated_at: own?.updated_at ?? null,
          };
        }),
      );
    },

    /** The key a node or agent of the workspace uses: its own, else the server's. */
    async resolve(workspaceId: string, provider: AiProvider): Promise<string | undefined> {
      const own = await credentials.defaultAiKey(workspaceId, provider);
      return own ? own.apiKey() : serverKey(provider);
    },
  };
}

export type ApiKeyStore = ReturnType<typeof createApiKeyStore>;
