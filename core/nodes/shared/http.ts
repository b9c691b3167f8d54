// What the HTTP-speaking nodes share: reaching env.fetch, reading bodies and judging answers.
import type { NodeCredentials, NodeEnv, NodeFetch } from "../define-node.js";
import { NodeError } from "../node-error.js";

/** Errors of the egress guard that the same request would meet again. */
const FINAL_EGRESS_ERRORS = new Set(["EgressRefusedError", "EgressLimitError"]);

export function fetchOf(env: NodeEnv): NodeFetch {
  if (!env.fetch) throw new NodeError("This runtime gives nodes no network access", { retryable: false });
  return env.fetch;
}

export function credentialsOf(env: NodeEnv): NodeCredentials {
  if (!env.credentials) throw new NodeError("This runtime gives nodes no stored credentials", { retryable: false });
  return env.credentials;
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
