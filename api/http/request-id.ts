// Every request gets an id: the caller's X-Request-Id when it is a sane token, else a new UUID.
// It is echoed in the X-Request-Id response header, carried by every log line written while the
// request is handled (lib/logger.ts), and ends with one access-log line (and, with tracing on,
// one server span).
import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";
import { requestContext, type Logger } from "../../lib/logger.js";
import type { ApiMetrics } from "../../lib/operator-metrics.js";
import { endRequestSpan, startRequestSpan } from "../../lib/tracing.js";

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The path as logged: hook, invite and password reset tokens are bearer capabilities and never
 * reach the logs (nor do the dashboard's pages of those links).
 */
export const loggedPath = (path: string) =>
  path.replace(
    /^(\/api\/hooks|\/api\/invites|\/api\/auth\/password-resets|\/invite|\/reset-password)\/[^/]+/,
    "$1/[token]",
  );

/**
 * The request's path as logged, whole: `req.path` is relative to the router that answered
 * (`/<token>` under /api/invites), so the redaction reads the original URL's path.
 */
export const loggedRequestPath = (req: { originalUrl: string }) =>
  loggedPath(new URL(req.originalUrl, "http://path.invalid").pathname);

/** The route pattern (bounded label values), or "unmatched". */
const routeOf = (req: Parameters<RequestHandler>[0]) =>
  req.route?.path === undefined ? "unmatched" : `${req.baseUrl}${String(req.route.path)}`.replace(/\/$/, "") || "/";

export function createRequestId(logger: Logger, metrics?: ApiMetrics): RequestHandler {
  return (req, res, next) => {
    const given = req.get("X-Request-Id");
    const requestId = given && SANE_ID.test(given) ? given : randomUUID();
    res.setHeader("X-Request-Id", requestId);
    const started = process.hrtime.bigint();
    requestContext.run({ requestId }, () => {
      // A server span (a no-op unless tracing is on), current while the request is handled.
      const { span, run } = startRequestSpan(req);
      res.on("finish", () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        endRequestSpan(span, routeOf(req), req.method, res.statusCode);
        metrics?.requests.observe({ method: req.method, route: routeOf(req), status: String(res.statusCode) }, seconds);
        requestContext.run({ requestId }, () => {
          logger.info(
            {
              method: req.method,
              path: loggedRequestPath(req),
              status: res.statusCode,
              // An API token's requests are attributed to it (its id; never the token).
              ...(req.token ? { token_id: req.token.token.id } : {}),
              duration_ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
            },
            "request",
          );
        });
      });
      run(() => next());
    });
  };
}
