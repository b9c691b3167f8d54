import { loggedPath } from "./request-id.js";
import type { ErrorRequestHandler, RequestHandler } from "express";
import { ZodError } from "zod";
import { isDatabaseUnavailable } from "../../lib/db.js";
import type { Logger } from "../../lib/logger.js";
import { HttpError } from "./errors.js";

interface BodyParserError {
  type?: string;
  status?: number;
  expose?: boolean;
}

const BODY_PARSER_ERRORS: Record<string, [number, string, string]> = {
  "entity.parse.failed": [400, "invalid_json", "Request body is not valid JSON"],
  "entity.too.large": [413, "payload_too_large", "Request body is too large"],
  "encoding.unsupported": [415, "unsupported_encoding", "Unsupported content encoding"],
  "charset.unsupported": [415, "unsupported_charset", "Unsupported charset"],
  "request.aborted": [400, "request_aborted", "Request aborted"],
};

/** Unknown routes: a 404 with the standard error body. */
export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(404).json({ error: `No route for ${req.method} ${req.path}`, code: "not_found" });
};

/**
 * The one error handler: every error becomes `{ error, code }` with its status. Unexpected
 * errors are logged and answered 500 without internals. (Express needs all four parameters.)
 */
export function createErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    if (err instanceof HttpError) {
      res
        .set(err.headers)
        .status(err.status)
        .json({ error: err.message, code: err.code, ...err.extra });
      return;
    }
    if (err instanceof ZodError) {
      res.status(400).json({
        error: "Invalid request",
        code: "validation_failed",
        details: err.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message })),
      });
      return;
    }
    const type = (err as BodyParserError | undefined)?.type;
    const known = type ? BODY_PARSER_ERRORS[type] : undefined;
    if (known) {
      const [status, code, message] = known;
      res.status(status).json({ error: message, code });
      return;
    }
    const prismaCode = (err as { code?: unknown } | undefined)?.code;
    if (prismaCode === "P2002") {
      res.status(409).json({ error: "A resource with these values already exists", code: "conflict" });
      return;
    }
    if (prismaCode === "P2025") {
      res.status(404).json({ error: "Not found", code: "not_found" });
      return;
    }
    // The database did not answer, or had no connection or time left for the request's
    // transaction (P2024, P2028): nothing was changed, and the same request may pass shortly.
    const unavailable = isDatabaseUnavailable(err);
    if (unavailable || prismaCode === "P2024" || prismaCode === "P2028") {
      logger.warn({ err, method: req.method, path: loggedPath(req.path) }, "database unavailable or busy");
      res
        .set("Retry-After", "1")
        .status(503)
        .json(
          unavailable
            ? { error: "The database is unavailable; try again shortly", code: "database_unavailable" }
            : { error: "The database is too busy to answer this request in time; try again", code: "database_busy" },
        );
      return;
    }
    logger.error({ err, method: req.method, path: loggedPath(req.path) }, "unhandled error");
    res.status(500).json({ error: "Internal server error", code: "internal" });
  };
}
