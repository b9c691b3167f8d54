import { loggedRequestPath } from "./request-id.js";
import type { ErrorRequestHandler, RequestHandler } from "express";
import { ZodError } from "zod";
import { isDatabaseUnavailable } from "../../lib/db-outage.js";
import { SealedJsonUnreadable } from "../../lib/crypto/sealed-json.js";
import { DomainError, type DomainErrorKind } from "../../core/errors.js";
import type { Logger } from "../../lib/logger.js";
import { HttpError } from "./errors.js";

interface BodyParserError {
  type?: string;
  status?: number;
  expose?: boolean;
  errno?: unknown;
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

/** The status of each kind of domain error (core/errors.ts). */
const DOMAIN_STATUS: Record<DomainErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  too_large: 413,
  unprocessable: 422,
  too_many: 429,
  unavailable: 503,
};

/** What an error the handler knows means to the client; undefined for an unexpected one. */
function knownError(err: unknown): HttpError | undefined {
  if (err instanceof HttpError) return err;
  if (err instanceof DomainError) {
    const retry: Record<string, string> =
      err.retryAfterSeconds === undefined ? {} : { "Retry-After": String(err.retryAfterSeconds) };
    return new HttpError(DOMAIN_STATUS[err.kind], err.code, err.message, err.details, retry);
  }
  // A payload sealed at rest that this server cannot open: its SVC_ENCRYPTION_KEY lacks the key.
  if (err instanceof SealedJsonUnreadable) {
    return new HttpError(503, "payload_unreadable", `This server cannot read a stored run payload: ${err.message}`);
  }
  if (err instanceof ZodError) {
    return new HttpError(400, "validation_failed", "Invalid request", {
      details: err.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message })),
    });
  }
  // The router could not decode a path parameter's percent-escapes.
  if (err instanceof URIError && (err as BodyParserError).status === 400) {
    return new HttpError(400, "invalid_path", "The path is not valid percent-encoded UTF-8");
  }
  const type = (err as BodyParserError | undefined)?.type;
  const parserError = type ? BODY_PARSER_ERRORS[type] : undefined;
  if (parserError) return new HttpError(...parserError);
  // Any other client error of the body parsers: a body that does not decompress as its
  // Content-Encoding says (zlib's and brotli's errors carry an errno), or one that could not be read.
  const { status, expose, errno } = (err ?? {}) as BodyParserError;
  if (typeof status === "number" && status >= 400 && status < 500 && expose === true) {
    return typeof errno === "number"
      ? new HttpError(status, "invalid_content_encoding", "Request body does not decode as its Content-Encoding says")
      : new HttpError(status, "unreadable_body", "Request body could not be read");
  }
  const prismaCode = (err as { code?: unknown } | undefined)?.code;
  if (prismaCode === "P2002") return new HttpError(409, "conflict", "A resource with these values already exists");
  if (prismaCode === "P2025") return new HttpError(404, "not_found", "Not found");
  // The database did not answer, or had no connection or time left for the request's
  // transaction (P2024, P2028): nothing was changed, and the same request may pass shortly.
  const retry = { "Retry-After": "1" };
  if (isDatabaseUnavailable(err)) {
    return new HttpError(503, "database_unavailable", "The database is unavailable; try again shortly", {}, retry);
  }
  if (prismaCode === "P2024" || prismaCode === "P2028") {
    const message = "The database is too busy to answer this request in time; try again";
    return new HttpError(503, "database_busy", message, {}, retry);
  }
  return undefined;
}

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
    const known = knownError(err);
    if (!known) {
      logger.error({ err, method: req.method, path: loggedRequestPath(req) }, "unhandled error");
      res.status(500).json({ error: "Internal server error", code: "internal" });
      return;
    }
    if (known.code === "database_unavailable" || known.code === "database_busy") {
      logger.warn({ err, method: req.method, path: loggedRequestPath(req) }, "database unavailable or busy");
    }
    res
      .set(known.headers)
      .status(known.status)
      .json({ error: known.message, code: known.code, ...known.extra });
  };
}
