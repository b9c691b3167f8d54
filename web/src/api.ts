// The API client. Served by the API itself (the default), calls are same-origin: the session cookie
// rides along and the CSRF guard accepts the page's own Origin. A dashboard hosted elsewhere names
// the API's origin (see apiBase) and calls it with credentials: the API must list that dashboard's
// origin in DASHBOARD_ORIGIN (CORS with credentials, CSRF). Errors become readable ApiErrors.

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
  if (error instanceof TypeError) {
    // A browser tells a refused cross-origin answer from a lost connection to no page script.
    return API_BASE
      ? `The service at ${API_BASE} does not answer, or does not accept this page's origin (the API's DASHBOARD_ORIGIN)`
      : "The service does not answer: is it running?";
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * The API's origin, for a dashboard hosted apart from it: `<meta name="svc-api-base" content="…">` in
 * index.html (set where the dashboard is deployed, no rebuild), else VITE_API_BASE at build time,
 * else "" (same origin).
 */
export function apiBase(doc: Pick<Document, "querySelector"> | undefined = globalThis.document): string {
  const meta = doc?.querySelector<HTMLMetaElement>('meta[name="svc-api-base"]')?.content.trim();
  const base = meta || import.meta.env.VITE_API_BASE?.trim() || "";
  return base.replace(/\/+$/, "");
}

const API_BASE = apiBase();

/** An absolute URL of an API path (hook URLs to copy, links). */
export const apiUrl = (path: string) => `${API_BASE || window.location.origin}${path}`;

export async function api<T>(path: string, options: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(`${API_BASE}${path}`, {
    method: options.method ?? "GET",
    // Another origin's cookie is sent only when asked for; the API answers it only from DASHBOARD_ORIGIN.
    credentials: API_BASE ? "include" : "same-origin",
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
