import { z } from "zod";
import { defineNode } from "../define-node.js";
import { NodeError } from "../node-error.js";
import { credentialField } from "../shared/credential-field.js";
import { credentialCall, guarded, headersObject, HTTP_CREDENTIAL_TYPES, retryableStatus } from "../shared/http.js";

const encoder = new TextEncoder();

/** HMAC-SHA256 of the raw body as lowercase hex (Web Crypto, so the node stays edge-compatible). */
async function sign(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(body)));
  return Array.from(mac, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

// `webhook` is the spec's inbound trigger type, so the outbound node has a name of its own.
export const sendWebhookNode = defineNode({
  type: "send_webhook",
  version: 1,
  name: "Send webhook",
  category: "integration",
  description:
    "POSTs a JSON payload (the node's input unless a payload is set) to a URL through the egress guard, optionally signed with X-SVC-Signature: sha256=<hmac>. Outputs {status, ok, headers, body}; 5xx, 408 and 429 answers are retried, other non-2xx answers fail at once. A stored credential (credential_id) authenticates the call to the receiver, as for http_request.",
  kind: "activity",
  reachesOutside: true,
  config: z.object({
    url: z.string().min(1).max(8192).meta({ label: "URL", placeholder: "https://hooks.example.com/orders" }),
    payload: z.unknown().optional().meta({ label: "Payload (default: the node's input)" }),
    headers: z.record(z.string(), z.string()).optional().meta({ label: "Headers" }),
    credential_id: credentialField("Credential (the receiver's authentication)", HTTP_CREDENTIAL_TYPES),
    secret: z.string().min(1).max(1000).optional().meta({ label: "Signing secret" }),
    timeout_ms: z.number().int().min(100).max(60_000).default(10_000).meta({ label: "Timeout (ms)" }),
  }),
  async execute(input, config, env) {
    const url = URL.canParse(config.url) ? new URL(config.url) : undefined;
    if (!url) throw new NodeError(`"${config.url}" is not a valid URL`, { retryable: false });
    const call = await credentialCall(env, config.credential_id);
    const body = JSON.stringify(config.payload === undefined ? input : config.payload) ?? "null";
    const headers = new Headers(config.headers);
    headers.set("Content-Type", "application/json");
    const item = env.run.itemIndex === undefined ? "" : `:${env.run.itemIndex}`;
    if (!headers.has("idempotency-key")) headers.set("Idempotency-Key", `${env.run.id}:${env.run.nodeId}${item}`);
    if (config.secret) headers.set("X-SVC-Signature", `sha256=${await sign(config.secret, body)}`);

    return call.scrubbed(
      guarded(async () => {
        const response = await call.fetch(url, {
          method: "POST",
          headers,
          body,
          signal: env.signal,
          timeoutMs: config.timeout_ms,
          maxResponseBytes: 64 * 1024,
        });
        const text = await response.text();
        if (!response.ok) {
          throw new NodeError(`The webhook receiver answered ${response.status}`, {
            retryable: retryableStatus(response.status),
            details: { status: response.status, body: text.slice(0, 2000) },
          });
        }
        return { status: response.status, ok: true, headers: headersObject(response.headers), body: text };
      }),
    );
  },
});
