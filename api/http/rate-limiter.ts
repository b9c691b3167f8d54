// The rate limiter is core/rate-limiter.ts. This name stays for the login, invite and hook routes
// that other branches are changing now; once they import core/rate-limiter.js, it goes.
export type { RateLimiter } from "../../core/rate-limiter.js";
