import { createSessionService } from "./auth/sessions.service.js";
import type { AppDeps } from "./deps.js";
import { createRateLimiter } from "./http/rate-limiter.js";

// Rate-limit windows are at most a day long; older counters are dead weight.
const RATE_LIMIT_RETENTION_MS = 86_400_000;

/** Deletes expired sessions and stale rate-limit counters; safe to run from every API process. */
export async function purgeExpired(deps: Pick<AppDeps, "prisma" | "clock" | "config">) {
  const sessions = await createSessionService(deps).purgeExpired();
  const before = new Date(deps.clock.now().getTime() - RATE_LIMIT_RETENTION_MS);
  const rateLimitBuckets = await createRateLimiter(deps).purge(before);
  return { sessions, rateLimitBuckets };
}

/** Runs purgeExpired now and every `intervalMs`; returns a function that stops it. */
export function schedulePurge(deps: Pick<AppDeps, "prisma" | "clock" | "config" | "logger">, intervalMs = 3_600_000) {
  const run = () =>
    purgeExpired(deps)
      .then((purged) => deps.logger.debug(purged, "purged expired sessions and rate-limit counters"))
      .catch((err: unknown) => deps.logger.warn({ err }, "purge of expired sessions failed"));
  void run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
