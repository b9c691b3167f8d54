import { createSessionService } from "./auth/sessions.service.js";
import { purgeDispatchedEvents } from "../lib/events.js";
import type { AppDeps } from "./deps.js";
import { createRateLimiter } from "../core/rate-limiter.js";
import { createLoginThrottle } from "./routes/auth/login-throttle.js";

// Rate-limit windows are at most a day long; older counters are dead weight.
const RATE_LIMIT_RETENTION_MS = 86_400_000;

/**
 * Deletes expired sessions, stale rate-limit counters and login throttles, and dispatched events past
 * EVENT_RETENTION; safe to run from every API process.
 */
export async function purgeExpired(deps: Pick<AppDeps, "prisma" | "clock" | "config">) {
  const now = deps.clock.now().getTime();
  const sessions = await createSessionService(deps).purgeExpired();
  const rateLimitBuckets = await createRateLimiter(deps).purge(new Date(now - RATE_LIMIT_RETENTION_MS));
  const loginThrottles = await createLoginThrottle(deps).purge(deps.clock.now());
  const events = await purgeDispatchedEvents(deps.prisma, new Date(now - deps.config.EVENT_RETENTION));
  return { sessions, rateLimitBuckets, loginThrottles, events };
}

/** Runs purgeExpired now and every `intervalMs`; returns a function that stops it. */
export function schedulePurge(deps: Pick<AppDeps, "prisma" | "clock" | "config" | "logger">, intervalMs = 3_600_000) {
  const run = () =>
    purgeExpired(deps)
      .then((purged) => deps.logger.debug(purged, "purged expired sessions, rate-limit counters and dispatched events"))
      .catch((err: unknown) => deps.logger.warn({ err }, "purge of expired sessions failed"));
  void run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
