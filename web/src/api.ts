// The API client. Served by the API itself (the default), calls are same-origin: the session cookie
// rides along and the CSRF guard accepts the page's own Origin. A dashboard hosted elsewhere names
// the API's origin (see apiBase) and calls it with credentials: the API must list that dashboard's
// origin in DASHBOARD_ORIGIN (CORS with credentials, CSRF). Errors become readable ApiErrors.
import createClient, { type Middleware } from "openapi-fetch";
import type { paths } from "./api-types";

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

/** An error answer as an ApiError: its `{ error, code, details }` body, or the status alone. */
async function apiErrorOf(response: Response): Promise<ApiError> {
  let fields: Record<string, unknown> = {};
  try {
    const body = JSON.parse(await response.text()) as unknown;
    if (body && typeof body === "object") fields = body as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  const message = typeof fields.error === "string" ? fields.error : `The service answered ${response.status}`;
  const code = typeof fields.code === "string" ? fields.code : String(response.status);
  const details = Array.isArray(fields.details) ? (fields.details as ProblemDetail[]) : [];
  return new ApiError(response.status, code, message, details, fields);
}

/** Error answers are thrown as ApiErrors, so a query's or a mutation's error is always one. */
const throwErrorAnswers: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) throw await apiErrorOf(response);
    return undefined;
  },
};

/**
 * A client of the API typed by path from its OpenAPI document (api-types.ts): a path, its
 * parameters, its body and its answer are checked by tsc, so a changed endpoint breaks this build.
 */
export function createApiClient(baseUrl: string) {
  const client = createClient<paths>({
    baseUrl,
    // Another origin's cookie is sent only when asked for; the API answers it only from DASHBOARD_ORIGIN.
    credentials: baseUrl ? "include" : "same-origin",
    headers: { Accept: "application/json" },
  });
  client.use(throwErrorAnswers);
  return client;
}

export const client = createApiClient(API_BASE);

/** The body of an answer: `read(client.GET("/api/runs/{id}", { params: { path: { id } } }))`. */
export async function read<T>(call: Promise<{ data?: T; error?: unknown }>): Promise<T> {
  const { data } = await call;
  return data as T;
}
