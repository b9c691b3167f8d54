// How a receiver verifies our deliveries: the example the README points to, and what the tests
// use as their receiver. Both schemes, constant-time comparisons, a replay window.
import { createHmac, timingSafeEqual } from "node:crypto";

const equal = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** X-SVC-Signature: sha256=<hex HMAC-SHA256 of the raw body, keyed with the secret as shown>. */
export function verifySvcSignature(secret: string, rawBody: string, header: string | undefined): boolean {
  if (!header) return false;
  return equal(`sha256=${createHmac("sha256", secret).update(rawBody).digest("hex")}`, header);
}

/**
 * Standard Webhooks: webhook-signature holds space-separated `v1,<base64>` values (two during a
 * secret rotation); one must match HMAC-SHA256("id.timestamp.body") keyed with the base64 bytes
 * after "whsec_". The timestamp must be recent, so a replayed request is refused.
 */
export function verifyStandardSignature(
  secret: string,
  rawBody: string,
  headers: { id?: string; timestamp?: string; signature?: string },
  options: { toleranceSeconds?: number; now?: Date } = {},
): boolean {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature || !/^\d+$/.test(timestamp)) return false;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${rawBody}`).digest("base64")}`;
  return signature.split(" ").some((value) => equal(value, expected));
}
