import type { Prisma } from "./db.js";

/**
 * A limit on one key, to be counted by a statement of the caller's (`counting`, one round trip
 * and one commit with the caller's own write, such as the one that records a run) or on its own
 * (`countAlone`); over `max`, the caller throws `refuse()` (countAlone throws it itself).
 * core/rate-limiter.ts makes them.
 */
export interface Quota {
  counting: Prisma.Sql;
  max: number;
  refuse: () => Error;
  countAlone: () => Promise<void>;
}
