// Provider keys: a workspace's own (stored sealed with AI_KEYS_SECRET, never returned), else the
// server's (OPENAI_API_KEY, ANTHROPIC_API_KEY).
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import { createSecretBox, parseSecretKey } from "../../lib/crypto/secret-box.js";
import type { PrismaClient } from "../../lib/db.js";
import type { AiProvider } from "./language-models.js";

const ownerOf = (workspaceId: string, provider: AiProvider) => `${workspaceId}:${provider}`;

export function createApiKeyStore({
  prisma,
  clock,
  config,
}: {
  prisma: PrismaClient;
  clock: Clock;
  config: Pick<Config, "AI_KEYS_SECRET" | "OPENAI_API_KEY" | "ANTHROPIC_API_KEY">;
}) {
  const box = config.AI_KEYS_SECRET ? createSecretBox(parseSecretKey(config.AI_KEYS_SECRET)!) : undefined;
  const serverKey = (provider: AiProvider) =>
    (provider === "openai" ? config.OPENAI_API_KEY : config.ANTHROPIC_API_KEY) || undefined;

  return {
    /** Whether workspaces can store keys (AI_KEYS_SECRET is set). */
    canStore: box !== undefined,

    async set(workspaceId: string, provider: AiProvider, apiKey: string, userId: string) {
      if (!box) throw new Error("AI_KEYS_SECRET is not set");
      const now = clock.now();
      const data = {
        ciphertext: box.seal(apiKey, ownerOf(workspaceId, provider)),
        last4: apiKey.slice(-4),
        updatedBy: userId,
        updatedAt: now,
      };
      return prisma.workspaceAiKey.upsert({
        where: { workspaceId_provider: { workspaceId, provider } },
        create: { workspaceId, provider, ...data },
        update: data,
      });
    },

    async remove(workspaceId: string, provider: AiProvider): Promise<boolean> {
      const { count } = await prisma.workspaceAiKey.deleteMany({ where: { workspaceId, provider } });
      return count > 0;
    },

    /** What the workspace may see: which providers have a key, and its last four characters. */
    async describe(workspaceId: string) {
      const rows = await prisma.workspaceAiKey.findMany({ where: { workspaceId }, orderBy: { provider: "asc" } });
      return (["openai", "anthropic"] as const).map((provider) => {
        const row = rows.find((r) => r.provider === provider);
        return {
          provider,
          source: row ? ("workspace" as const) : serverKey(provider) ? ("server" as const) : null,
          last4: row?.last4 ?? null,
          updated_at: row?.updatedAt.toISOString() ?? null,
        };
      });
    },

    /** The key a node or agent of the workspace uses: its own, else the server's. */
    async resolve(workspaceId: string, provider: AiProvider): Promise<string | undefined> {
      if (box) {
        const row = await prisma.workspaceAiKey.findUnique({
          where: { workspaceId_provider: { workspaceId, provider } },
        });
        if (row) return box.open(row.ciphertext, ownerOf(workspaceId, provider));
      }
      return serverKey(provider);
    },
  };
}

export type ApiKeyStore = ReturnType<typeof createApiKeyStore>;
