// The API client: same origin, so the session cookie rides along; the CSRF guard accepts the
// browser's own Origin header on state-changing requests. Errors become readable ApiErrors.

export interface ProblemDetail {
  path: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ProblemDetail[] = [],
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** A message a person understands, from an API error or anything else thrown. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 401 && error.code !== "invalid_credentials") return "Your session has ended: log in again.";
    if (error.status === 403 && error.code === "forbidden") return `Not allowed: ${error.message}`;
    const details = error.details.map((d) => `${d.path}: ${d.message}`).join("; ");
    return details ? `${error.message} (${details})` : error.message;
  }
  if (error instanceof TypeError) return "The service does not answer: is it running?";
  return error instanceof Error ? error.message : String(error);
}

export async function api<T>(path: string, options: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(path, {
    method: options.method ?? "GET",
    credentials: "same-origin",
    headers: options.body === undefined ? { Accept: "application/json" } : { "Content-Type": "application/json" },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const fields = (body ?? {}) as Record<string, unknown>;
    const message = typeof fields.error === "string" ? fields.error : `The service answered ${response.status}`;
    const code = typeof fields.code === "string" ? fields.code : String(response.status);
    const details = Array.isArray(fields.details) ? (fields.details as ProblemDetail[]) : [];
    throw new ApiError(response.status, code, message, details, fields);
  }
  return body as T;
}

export const post = <T>(path: string, body: unknown = {}) => api<T>(path, { method: "POST", body });
export const put = <T>(path: string, body: unknown) => api<T>(path, { method: "PUT", body });
export const del = <T>(path: string) => api<T>(path, { method: "DELETE" });
