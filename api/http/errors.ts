/** An error that maps to an HTTP status and a machine-readable code in the error body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra fields merged into the body, e.g. `details` or `current_version`. */
    readonly extra: Record<string, unknown> = {},
    /** Response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export const badRequest = (message: string, extra?: Record<string, unknown>) =>
  new HttpError(400, "bad_request", message, extra);
export const unauthorized = (message = "Authentication required") => new HttpError(401, "unauthorized", message);
export const forbidden = (message = "Forbidden") => new HttpError(403, "forbidden", message);
export const notFound = (message = "Not found") => new HttpError(404, "not_found", message);
export const conflict = (message: string, extra?: Record<string, unknown>) =>
  new HttpError(409, "conflict", message, extra);
