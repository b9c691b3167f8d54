// Webhook signatures. Two schemes on every delivery:
//  - the spec's X-SVC-Signature: sha256=<hex HMAC-SHA256 of the raw body>, keyed with the secret
//    string exactly as shown to the user;
//  - Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC of
//    "id.timestamp.body">), keyed with the base64 bytes after "whsec_", as its libraries expect,
//    so receivers can refuse replays by id and timestamp.
import { createHmac, randomBytes } from "node:crypto";

const PREFIX = "whsec_";

export function generateWebhookSecret(): string {
  return `${PREFIX}${randomBytes(32).toString("base64")}`;
}

export function svcSignature(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

/**
 * The headers of one attempt. `secrets` lists the current secret first; a rotated-out one still
 * in its grace period follows and adds a second value to webhook-signature.
 */
export function deliveryHeaders(input: {
  event: string;
  deliveryId: string;
  body: string;
  secrets: string[];
  now: Date;
}): Record<string, string> {
  const timestamp = Math.floor(input.now.getTime() / 1000);
  return {
    "Content-Type": "application/json",
    "User-Agent": "svc-webhooks/1",
    "X-SVC-Event": input.event,
    "X-SVC-Signature": svcSignature(input.secrets[0]!, input.body),
    "webhook-id": input.deliveryId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": input.secrets
      .map((secret) => standardSignature(secret, input.deliveryId, timestamp, input.body))
      .join(" "),
  };
}
