// The key-value store of one workspace (env.kv). Entries may expire: an expired entry is never
// returned, is deleted when read, and the worker's periodic purge deletes the rest.
import type { Clock } from "../../lib/clock.js";
import { jsonValue, Prisma, type PrismaClient } from "../../lib/db.js";
import type { Logger } from "../../lib/logger.js";
import { KV_LIMITS } from "../nodes/shared/data-limits.js";
import type { KeyValueStore } from "../nodes/define-node.js";
import { checkKey, intOption, jsonText } from "./store-input.js";
import { runPeriodically } from "../../lib/periodic.js";

export interface KvStoreDeps {
  prisma: Pick<PrismaClient, "kvEntry">;
  clock: Clock;
}

export function createKvStore({ prisma, clock }: KvStoreDeps, workspaceId: string): KeyValueStore {
  return {
    /** The value, or undefined when the key is absent or expired (a stored null is returned as null). */
    async get(key) {
      checkKey(key);
      const entry = await prisma.kvEntry.findUnique({
        where: { workspaceId_key: { workspaceId, key } },
        select: { value: true, expiresAt: true },
      });
      if (!entry) return undefined;
      const now = clock.now();
      if (entry.expiresAt && entry.expiresAt <= now) {
        // Only if still expired: a concurrent set may have renewed it.
        await prisma.kvEntry.deleteMany({ where: { workspaceId, key, expiresAt: { lte: now } } });
        return undefined;
      }
      return entry.value;
    },

    /** Stores the value; without ttlSeconds the entry never expires (a previous TTL is cleared). */
    async set(key, value, options = {}) {
      checkKey(key);
      const text = jsonText(value, "value", KV_LIMITS.maxValueBytes);
      const ttl =
        options.ttlSeconds === undefined
          ? undefined
          : intOption(options.ttlSeconds, "ttl_seconds", { min: 1, max: KV_LIMITS.maxTtlSeconds, default: 0 });
      const now = clock.now();
      const expiresAt = ttl === undefined ? null : new Date(now.getTime() + ttl * 1000);
      const stored = jsonValue(JSON.parse(text));
      await prisma.kvEntry.upsert({
        where: { workspaceId_key: { workspaceId, key } },
        create: { workspaceId, key, value: stored, expiresAt, createdAt: now, updatedAt: now },
        update: { value: stored, expiresAt, updatedAt: now },
      });
    },

    /** True when a live entry was deleted; an expired one is removed too but counts as absent. */
    async delete(key) {
      checkKey(key);
      const now = clock.now();
      try {
        const { expiresAt } = await prisma.kvEntry.delete({
          where: { workspaceId_key: { workspaceId, key } },
          select: { expiresAt: true },
        });
        return expiresAt === null || expiresAt > now;
      } catch (error) {
        if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2025") return false;
        throw error;
      }
    },
  };
}

/** Deletes expired entries of every workspace; returns how many. */
export async function purgeExpiredKvEntries({ prisma, clock }: KvStoreDeps): Promise<number> {
  const { count } = await prisma.kvEntry.deleteMany({ where: { expiresAt: { lte: clock.now() } } });
  return count;
}

/** Runs purgeExpiredKvEntries every `intervalMs` or so. */
export function scheduleKvPurge(deps: KvStoreDeps & { logger?: Logger }, intervalMs = 5 * 60_000): () => void {
  return runPeriodically(
    async () => {
      const count = await purgeExpiredKvEntries(deps);
      if (count > 0) deps.logger?.debug({ count }, "expired key-value entries purged");
    },
    { intervalMs, onError: (err) => deps.logger?.error({ err }, "key-value purge failed") },
  );
}
