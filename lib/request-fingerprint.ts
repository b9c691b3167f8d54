// What an idempotency key is bound to: the request that first used it. A repeat of the key
// replays the earlier answer only for the same request, as payment APIs do.
import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical-json.js";

/**
 * The SHA-256 (hex) of a request's method, path with its query as sent, and body in canonical
 * form (object keys sorted, no spacing): the same request, whatever its key order or spacing,
 * gives the same fingerprint; another method, path, query or body another one.
 */
export function requestFingerprint(request: { method: string; path: string; body: unknown }): string {
  const text = canonicalJson([request.method.toUpperCase(), request.path, request.body ?? null]);
  return createHash("sha256").update(text).digest("hex");
}
