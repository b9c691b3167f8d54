import { z } from "zod";
import { defineNode } from "../define-node.js";
import { NodeError } from "../node-error.js";
import { credentialField } from "../shared/credential-field.js";
import {
  credentialCall,
  guarded,
  headersObject,
  HTTP_CREDENTIAL_TYPES,
  parseBody,
  retryableStatus,
} from "../shared/http.js";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;
const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

const scalar = z.union([z.string(), z.number(), z.boolean()]);

export const httpRequestNode = defineNode({
  type: "http_request",
  version: 1,
  name: "HTTP request",
  category: "integration",
  description:
    "Calls an HTTP API through the egress guard and outputs {status, headers, body}. Sends Idempotency-Key: <run>:<node> (<run>:<node>:<item index> per item) so that a retried attempt is recognisable; 5xx, 408 and 429 answers are retried, other 4xx fail at once. A stored credential (credential_id) is applied at call time and its values are scrubbed from the output and errors; with OAuth2, a 401 fetches a new token and tries once more.",
  kind: "activity",
  reachesOutside: true,
  config: z.object({
    method: z.enum(METHODS).default("GET").meta({ label: "Method" }),
    url: z
      .string()
      .min(1)
      .max(8192)
      .meta({ label: "URL", placeholder: "https://api.example.com/orders/{{ input.id }}" }),
    headers: z.record(z.string(), z.string()).optional().meta({ label: "Headers" }),
    credential_id: credentialField("Credential", HTTP_CREDENTIAL_TYPES),
    query: z.record(z.string(), scalar).optional().meta({ label: "Query parameters" }),
    body_type: z.enum(["json", "form", "text"]).default("json").meta({ label: "Body type" }),
    body: z.unknown().optional().meta({ label: "Body" }),
    response_type: z.enum(["auto", "json", "text"]).default("auto").meta({ label: "Read the response as" }),
    timeout_ms: z.number().int().min(100).max(300_000).default(30_000).meta({ label: "Timeout (ms)" }),
    max_response_bytes: z
      .number()
      .int()
      .min(1)
      .max(MAX_RESPONSE_BYTES)
      .default(1024 * 1024)
      .meta({ label: "Response size cap (bytes)" }),
    follow_redirects: z.boolean().default(true).meta({ label: "Follow redirects (at most 5)" }),
    fail_on_error_status: z.boolean().default(true).meta({ label: "Fail on a 4xx or 5xx answer" }),
  }),
  async execute(_input, config, env) {
    let url: URL;
    try {
      url = new URL(config.url);
    } catch {
      throw new NodeError(`"${config.url}" is not a valid URL`, { retryable: false });
    }
    for (const [name, value] of Object.entries(config.query ?? {})) url.searchParams.append(name, String(value));
    const call = await credentialCall(env, config.credential_id);

    const headers = new Headers(config.headers);
    // Per item (the node's items setting), each item's own key: the same on every attempt.
    const item = env.run.itemIndex === undefined ? "" : `:${env.run.itemIndex}`;
    if (!headers.has("idempotency-key")) headers.set("Idempotency-Key", `${env.run.id}:${env.run.nodeId}${item}`);
    let body: string | undefined;
    if (config.body !== undefined && config.method !== "GET" && config.method !== "HEAD") {
      if (config.body_type === "json") {
        body = JSON.stringify(config.body);
        if (!headers.has("content-type")) headers.set("Content-Type", "application/json");
      } else if (config.body_type === "form") {
        if (typeof config.body !== "object" || config.body === null || Array.isArray(config.body)) {
          throw new NodeError("A form body must be an object of fields", { retryable: false });
        }
        const form = new URLSearchParams();
        for (const [name, value] of Object.entries(config.body)) {
          form.append(name, typeof value === "string" ? value : JSON.stringify(value));
        }
        body = form.toString();
        headers.set("Content-Type", "application/x-www-form-urlencoded");
      } else {
        body = typeof config.body === "string" ? config.body : JSON.stringify(config.body);
        if (!headers.has("content-type")) headers.set("Content-Type", "text/plain; charset=utf-8");
      }
    }

    // What the API answers (headers or a body echoing the request) never carries the secret on.
    return call.scrubbed(
      guarded(async () => {
        const response = await call.fetch(url, {
          method: config.method,
          headers,
          body,
          redirect: config.follow_redirects ? "follow" : "manual",
          signal: env.signal,
          timeoutMs: config.timeout_ms,
          maxResponseBytes: config.max_response_bytes,
        });
        const text = config.method === "HEAD" ? "" : await response.text();
        const result = {
          status: response.status,
          headers: headersObject(response.headers),
          body: parseBody(text, response.headers.get("content-type"), config.response_type),
        };
        if (config.fail_on_error_status && response.status >= 400) {
          throw new NodeError(`${config.method} ${url.origin}${url.pathname} answered ${response.status}`, {
            retryable: retryableStatus(response.status),
            details: {
              status: response.status,
              body: typeof result.body === "string" ? result.body.slice(0, 2000) : result.body,
            },
          });
        }
        return result;
      }),
    );
  },
});
