// What the HTTP-speaking nodes share: reaching env.fetch, reading bodies and judging answers.
import type { NodeEnv, NodeFetch } from "../define-node.js";
import { NodeError } from "../node-error.js";

/** Errors of the egress guard that the same request would meet again. */
const FINAL_EGRESS_ERRORS = new Set(["EgressRefusedError", "EgressLimitError"]);

export function fetchOf(env: NodeEnv): NodeFetch {
  if (!env.fetch) throw new NodeError("This runtime gives nodes no network access", { retryable: false });
  return env.fetch;
}

/** The credentials a request can carry (http_request, send_webhook). */
export const HTTP_CREDENTIAL_TYPES = ["bearer", "basic", "api_key", "headers", "oauth2_client_credentials"] as const;

/**
 * A call with a stored credential (`credential_id`), or without one: `fetch` applies it to a copy
 * of each request and, after a 401 with an OAuth2 token, sends once more with a new one; `scrubbed`
 * keeps its values out of what the call returns or throws (an API echoing the request's headers).
 */
export async function credentialCall(env: NodeEnv, credentialId: string | undefined) {
  if (credentialId && !env.credentials) {
    throw new NodeError("This runtime gives nodes no stored credentials", { retryable: false });
  }
  const credential = credentialId ? await env.credentials!.resolve(credentialId, HTTP_CREDENTIAL_TYPES) : undefined;
  const fetch = fetchOf(env);
  return {
    async fetch(url: URL, init: NonNullable<Parameters<NodeFetch>[1]>): Promise<Response> {
      const send = async () => {
        const request = { url: new URL(url), headers: new Headers(init.headers) };
        await credential?.apply(request);
        return fetch(request.url, { ...init, headers: request.headers, sensitiveHeaders: credential?.headerNames });
      };
      const response = await send();
      if (response.status !== 401 || !credential?.renew()) return response;
      await response.body?.cancel();
      return send();
    },
    scrubbed<T>(work: Promise<T>): Promise<T> {
      if (!credential) return work;
      return work.then(
        (result) => credential.redact(result),
        (error: unknown) => {
          throw credential.redact(error);
        },
      );
    },
  };
}

/** Runs a call through env.fetch, turning the guard's refusals into final node errors. */
export async function guarded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    // Body reads report the guard's error as the cause of their own.
    for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; depth++) {
      if (FINAL_EGRESS_ERRORS.has(current.name)) {
        throw new NodeError(current.message, {
          retryable: false,
          details: { rule: (current as { rule?: string }).rule },
        });
      }
      if (current.name === "EgressTimeoutError" || current.name === "TimeoutError") {
        throw new NodeError(current.name === "TimeoutError" ? "The call ran out of time" : current.message);
      }
      current = current.cause;
    }
    throw error;
  }
}

/** Whether a failed status is worth another attempt: server errors, timeouts and rate limits. */
export const retryableStatus = (status: number) => status >= 500 || status === 408 || status === 425 || status === 429;

export function headersObject(headers: Headers): Record<string, string> {
  const result: Record<string, string> = {};
  headers.forEach((value, name) => {
    result[name] = value;
  });
  return result;
}

/** Parses JSON when the answer says it is JSON (or when asked to), else returns the text. */
export function parseBody(text: string, contentType: string | null, as: "auto" | "json" | "text"): unknown {
  if (as === "text" || text === "") return text;
  const looksJson = /[/+]json\b/i.test(contentType ?? "");
  if (as === "auto" && !looksJson) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    if (as === "json") throw new NodeError("The response is not valid JSON", { retryable: false });
    return text;
  }
}
