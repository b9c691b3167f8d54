import type { RequestHandler } from "express";
import { HttpError } from "./errors.js";
import type { OriginPolicy } from "./origins.js";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The session cookie is SameSite=None, so the browser sends it on cross-site requests: a
 * state-changing request is refused unless its Origin is allowed or the API's own. Without an
 * Origin header, Sec-Fetch-Site decides; a request with neither does not come from a browser
 * page (curl, servers) and cannot be a forged cross-site request.
 */
export function createCsrfGuard(origins: OriginPolicy): RequestHandler {
  return (req, _res, next) => {
    if (SAFE_METHODS.has(req.method)) {
      next();
      return;
    }
    const origin = req.headers.origin;
    const site = req.headers["sec-fetch-site"];
    const trusted =
      origin !== undefined
        ? origins.isAllowed(origin) || origins.isSameOrigin(origin, req.headers.host)
        : site === undefined || site === "same-origin" || site === "none";
    if (!trusted) throw new HttpError(403, "csrf_refused", "Cross-site request refused: origin not allowed");
    next();
  };
}
