// The API's housekeeping: the rows of logins, of the event outbox, of the audit log and of idle
// concurrency keys that have served their time.
import type { Clock } from "../lib/clock.js";
import type { Config } from "../lib/config.js";
import type { PrismaClient } from "../lib/db.js";
import { purgeDispatchedEvents } from "../lib/events.js";
import type { Logger } from "../lib/logger.js";
import { purgeAuditEvents } from "./audit/audit-retention.js";
import { CONCURRENCY_KEY_IDLE_MS, pruneIdleConcurrencyKeys } from "./engine/concurrency-slots.js";
import { createRateLimiter } from "./rate-limiter.js";
import { createLoginThrottle } from "./sessions/login-throttle.js";
import { createSessionService } from "./sessions/sessions.service.js";

interface MaintenanceDeps {
  prisma: PrismaClient;
  clock: Clock;
  config: Pick<
    Config,
    "SESSION_IDLE_TIMEOUT" | "LOGIN_FREE_FAILURES" | "LOGIN_MAX_DELAY" | "EVENT_RETENTION" | "AUDIT_RETENTION_DAYS"
  >;
}

// Rate-limit windows are at most a day long; older counters are dead weight.
const RATE_LIMIT_RETENTION_MS = 86_400_000;

/**
 * Deletes expired sessions, stale rate-limit counters and login throttles, dispatched events past
 * EVENT_RETENTION, audit rows past AUDIT_RETENTION_DAYS (0: none) and the counter rows of concurrency
 * keys idle for a day; safe to run from every API process.
 */
export async function purgeExpired(deps: MaintenanceDeps) {
  const now = deps.clock.now().getTime();
  const sessions = await createSessionService(deps).purgeExpired();
  const rateLimitBuckets = await createRateLimiter(deps).purge(new Date(now - RATE_LIMIT_RETENTION_MS));
  const loginThrottles = await createLoginThrottle(deps).purge(deps.clock.now());
  const events = await purgeDispatchedEvents(deps.prisma, new Date(now - deps.config.EVENT_RETENTION));
  const days = deps.config.AUDIT_RETENTION_DAYS;
  const auditEvents = days > 0 ? await purgeAuditEvents(deps.prisma, new Date(now - days * 86_400_000)) : 0;
  const concurrencyKeys = await pruneIdleConcurrencyKeys(deps.prisma, new Date(now - CONCURRENCY_KEY_IDLE_MS));
  return { sessions, rateLimitBuckets, loginThrottles, events, auditEvents, concurrencyKeys };
}

/** Runs purgeExpired now and every `intervalMs`; returns a function that stops it. */
export function schedulePurge(deps: MaintenanceDeps & { logger: Logger }, intervalMs = 3_600_000) {
  const run = () =>
    purgeExpired(deps)
      .then((purged) => deps.logger.debug(purged, "purged expired sessions, rate-limit counters and dispatched events"))
      .catch((err: unknown) => deps.logger.warn({ err }, "purge of expired sessions failed"));
  void run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
