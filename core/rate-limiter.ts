// Rate limits of requests (logins, invites, hook calls), counted in PostgreSQL so that every API
// process shares them.
import type { Clock } from "../lib/clock.js";
import { Prisma, sqlQuery, type PrismaClient } from "../lib/db.js";
import type { Quota } from "../lib/quota.js";
import { DomainError } from "./errors.js";

/** Over a limit: refused until the window ends (`retry_after`, in whole seconds, says when). */
export class RateLimited extends DomainError {
  override name = "RateLimited";
  constructor(message: string, seconds: number) {
    super("too_many", "rate_limited", message, { retry_after: seconds }, seconds);
  }
}

export interface WindowCount {
  count: number;
  /** When the current window ends and the count starts again from zero. */
  resetAt: Date;
}

/**
 * Fixed-window counters in PostgreSQL, so that every API process shares them. Each hit is one
 * atomic upsert: a counter whose window has passed starts again at 1.
 */
export function createRateLimiter({ prisma, clock }: { prisma: PrismaClient; clock: Clock }) {
  const windowOf = (windowMs: number) => {
    const now = clock.now().getTime();
    const start = Math.floor(now / windowMs) * windowMs;
    return { start: new Date(start), resetAt: new Date(start + windowMs) };
  };

  /** The refusal, with the whole seconds until the window resets. */
  function tooManyRequests(message: string, resetAt: Date): RateLimited {
    const seconds = Math.max(1, Math.ceil((resetAt.getTime() - clock.now().getTime()) / 1000));
    return new RateLimited(message, seconds);
  }

  /** The statement that counts one event under `key` and returns the count in the current window. */
  function counting(key: string, windowMs: number) {
    const { start, resetAt } = windowOf(windowMs);
    const sql = Prisma.sql`
      INSERT INTO rate_limit_buckets (key, window_start, count) VALUES (${key}, ${start}, 1)
      ON CONFLICT (key) DO UPDATE SET
        count = CASE WHEN rate_limit_buckets.window_start = EXCLUDED.window_start
                     THEN rate_limit_buckets.count + 1 ELSE 1 END,
        window_start = EXCLUDED.window_start
      RETURNING count`;
    return { sql, resetAt };
  }

  // One statement past Prisma's query layer (see sqlQuery): every login attempt and hook request counts.
  const count = async (sql: Prisma.Sql) => (await sqlQuery<{ count: number }>(prisma, sql))[0]!.count;

  return {
    /** Counts one event under `key`; returns the count in the current window. */
    async hit(key: string, windowMs: number): Promise<WindowCount> {
      const { sql, resetAt } = counting(key, windowMs);
      return { count: await count(sql), resetAt };
    },

    /** A limit of `max` events under `key` per window; refused with `message` (lib/quota.ts). */
    quota(key: string, windowMs: number, max: number, message: string): Quota {
      const { sql, resetAt } = counting(key, windowMs);
      const refuse = () => tooManyRequests(message, resetAt);
      return {
        counting: sql,
        max,
        refuse,
        async countAlone() {
          if ((await count(sql)) > max) throw refuse();
        },
      };
    },

    /** Deletes counters whose window started before `before`. */
    async purge(before: Date): Promise<number> {
      return (await prisma.rateLimitBucket.deleteMany({ where: { windowStart: { lt: before } } })).count;
    },

    tooManyRequests,
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
