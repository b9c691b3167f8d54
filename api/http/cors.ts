import type { RequestHandler } from "express";
import type { OriginPolicy } from "./origins.js";

export const CORS_METHODS = "GET, POST, PUT, DELETE, OPTIONS";
const ALLOWED_HEADERS = "Authorization, Content-Type, Idempotency-Key, X-Request-Id";
const EXPOSED_HEADERS = "Retry-After, X-Request-Id";

/**
 * CORS for the dashboards: an allowed origin is echoed with credentials; any other origin gets
 * no CORS headers at all (and its preflight a 403), so the browser keeps the response from it.
 * A preflight is told `methods` and `headers` (by default those of the API's own routes).
 */
export function createCors(
  origins: OriginPolicy,
  { methods = CORS_METHODS, headers = ALLOWED_HEADERS }: { methods?: string; headers?: string } = {},
): RequestHandler {
  return (req, res, next) => {
    res.vary("Origin");
    const origin = req.headers.origin;
    const allowed = origin !== undefined && origins.isAllowed(origin);
    const preflight = req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined;
    if (allowed) {
      res.set("Access-Control-Allow-Origin", origin);
      res.set("Access-Control-Allow-Credentials", "true");
      res.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    }
    if (!preflight) {
      next();
      return;
    }
    if (!allowed) {
      res.status(403).json({ error: "Origin not allowed", code: "cors_origin_refused" });
      return;
    }
    res.set("Access-Control-Allow-Methods", methods);
    res.set("Access-Control-Allow-Headers", headers);
    res.set("Access-Control-Max-Age", "600");
    res.status(204).end();
  };
}
