// The Idempotency-Key header of a request that starts something (a run, a rerun, a bulk rerun):
// the key, checked, bound to the request that used it (its method, path with query, and body), so
// that a repeat replays the first answer only for the same request, as payment APIs do.
import type { Request } from "express";
import { requestFingerprint } from "../../lib/request-fingerprint.js";
import { idempotencyKeySchema } from "../routes/flows/flows.schema.js";

export interface RequestIdempotency {
  key: string;
  requestFingerprint: string;
}

/** The request's key and fingerprint over `body` (what the route validated); none without the header. */
export function idempotencyOf(req: Request, body: unknown): RequestIdempotency | undefined {
  const header = req.get("Idempotency-Key");
  if (header === undefined) return undefined;
  return {
    key: idempotencyKeySchema.parse(header),
    requestFingerprint: requestFingerprint({ method: req.method, path: req.originalUrl, body }),
  };
}
