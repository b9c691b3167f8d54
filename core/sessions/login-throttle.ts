// Login throttling per account and source, as OWASP's authentication guidance advises instead of
// locking an account: a lockout lets anyone who knows an e-mail lock its owner out. Failed logins
// of one (account, source) pair earn it a delay that doubles with each further failure, so a
// guesser is slowed to a few attempts an hour, while the owner, logging in from their own address,
// is never held up by someone else's failures. A success clears the pair. The state lives in
// PostgreSQL (login_throttles) so that every API process applies it.
import ipaddr from "ipaddr.js";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import { DomainError } from "../errors.js";

/** The first delay; each further failure doubles it, up to LOGIN_MAX_DELAY. */
export const LOGIN_FIRST_DELAY_MS = 1000;
/** A pair with no failure for this long starts again from zero. */
export const LOGIN_FORGET_AFTER_MS = 86_400_000;

/**
 * The source of a login: the client address as the API determines it (TRUSTED_PROXIES), IPv4
 * mapped into IPv6 as IPv4, and IPv6 as its /64, the block one subscriber usually holds whole.
 */
export function loginSource(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip.slice(0, 100);
  let address = ipaddr.parse(ip);
  if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress()) address = address.toIPv4Address();
  if (address instanceof ipaddr.IPv4) return address.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/64`).toString()}/64`;
}

export type LoginThrottleConfig = Pick<Config, "LOGIN_FREE_FAILURES" | "LOGIN_MAX_DELAY">;

/** How long a pair waits after its `failures`-th failure: none for the free ones, then doubling. */
export function loginDelayMs(failures: number, config: LoginThrottleConfig): number {
  const beyond = failures - config.LOGIN_FREE_FAILURES;
  if (beyond <= 0) return 0;
  return Math.min(config.LOGIN_MAX_DELAY, LOGIN_FIRST_DELAY_MS * 2 ** Math.min(beyond - 1, 40));
}

export function createLoginThrottle({
  prisma,
  clock,
  config,
}: {
  prisma: PrismaClient;
  clock: Clock;
  config: LoginThrottleConfig;
}) {
  // Delays by failure count (1-based in SQL), up to the first count that reaches the cap.
  const delays: number[] = [];
  for (let failures = 1; ; failures++) {
    delays.push(loginDelayMs(failures, config));
    if (delays.at(-1)! >= config.LOGIN_MAX_DELAY || failures > config.LOGIN_FREE_FAILURES + 41) break;
  }

  const throttled = (retryAfterMs: number) => {
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    return new DomainError(
      "too_many",
      "login_throttled",
      `Too many failed logins for this account from your address; try again in ${seconds} s`,
      { retry_after: seconds },
      seconds,
    );
  };

  return {
    /**
     * Takes one attempt for the pair before any password is checked, counted as a failure until
     * `succeeded` clears it (one statement, so parallel attempts cannot slip past a delay); throws
     * 429 login_throttled with Retry-After while the pair waits.
     */
    async attempt(account: string, source: string): Promise<void> {
      const now = clock.now();
      const forgetBefore = new Date(now.getTime() - LOGIN_FORGET_AFTER_MS);
      const failures = Prisma.sql`CASE WHEN t.last_failure_at < ${forgetBefore} THEN 1 ELSE t.failures + 1 END`;
      const taken = await sqlQuery<{ failures: number }>(
        prisma,
        Prisma.sql`
          INSERT INTO login_throttles AS t (account, source, failures, last_failure_at, blocked_until)
          VALUES (${account}, ${source}, 1, ${now}, ${new Date(now.getTime() + delays[0]!)})
          ON CONFLICT (account, source) DO UPDATE SET
            failures = ${failures},
            last_failure_at = EXCLUDED.last_failure_at,
            blocked_until = ${now}::timestamptz
              + (${delays}::int[])[LEAST(${failures}, ${delays.length})] * interval '1 millisecond'
          WHERE t.blocked_until IS NULL OR t.blocked_until <= ${now}
          RETURNING failures`,
      );
      if (taken.length > 0) return;
      const [waiting] = await sqlQuery<{ blockedUntil: Date }>(
        prisma,
        Prisma.sql`SELECT blocked_until AS "blockedUntil" FROM login_throttles WHERE account = ${account} AND source = ${source}`,
      );
      throw throttled((waiting?.blockedUntil.getTime() ?? now.getTime()) - now.getTime());
    },

    /** The pair logged in: its failures are forgotten. */
    async succeeded(account: string, source: string): Promise<void> {
      await prisma.loginThrottle.deleteMany({ where: { account, source } });
    },

    /** Deletes pairs whose last failure is older than LOGIN_FORGET_AFTER_MS before `now`. */
    async purge(now: Date): Promise<number> {
      const before = new Date(now.getTime() - LOGIN_FORGET_AFTER_MS);
      return (await prisma.loginThrottle.deleteMany({ where: { lastFailureAt: { lt: before } } })).count;
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
