import { z } from "zod";

/** Payloads of one request: a page of history events at most (the UI decodes them in batches). */
export const MAX_CODEC_PAYLOADS = 10_000;

const base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, { message: "expected base64" });

/** A Temporal Payload as the Temporal UI sends it (proto JSON): metadata values and data in base64. */
export const codecPayloadSchema = z
  .looseObject({
    metadata: z.record(z.string().max(256), base64).optional(),
    data: base64.optional(),
  })
  .meta({ description: "A Temporal Payload in proto JSON: metadata values and data in base64" });

/** The remote codec protocol's body, the same both ways (Temporal: "Codec Server"). */
export const codecPayloadsSchema = z.object({ payloads: z.array(codecPayloadSchema).max(MAX_CODEC_PAYLOADS) });
