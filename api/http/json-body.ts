// The API's request bodies are JSON (the spec: "Send Content-Type: application/json on requests
// with a body"). A body of another type is refused with 415 rather than read as no body, bytes
// that are not UTF-8 with 400 rather than replaced, and JSON nested deeper than MAX_JSON_DEPTH
// with 400 before it is parsed: nothing downstream (validation, JSON.stringify, Prisma's JSON
// encoding, PostgreSQL's jsonb) then meets a document deep enough to exhaust its stack or its own
// recursion limit.
import { isUtf8 } from "node:buffer";
import express, { type RequestHandler } from "express";
import { HttpError } from "./errors.js";

/** Deepest nesting of objects and arrays a JSON body may have (System.Text.Json's default too). */
export const MAX_JSON_DEPTH = 64;

/** The media types read as JSON: application/json and any `+json` type. */
export const JSON_MEDIA_TYPES = ["application/json", "+json"];

export const jsonTooDeep = () =>
  new HttpError(
    400,
    "json_too_deep",
    `JSON nested deeper than ${MAX_JSON_DEPTH} levels (objects and arrays) is not accepted`,
    { max_depth: MAX_JSON_DEPTH },
  );

/** Bytes that are not UTF-8: refused rather than decoded with U+FFFD in their place (the text would change unseen). */
export const invalidUtf8 = () =>
  new HttpError(400, "invalid_utf8", "The request body is not valid UTF-8 (JSON bodies must be UTF-8)");

/** Throws invalidUtf8() unless `raw` is well-formed UTF-8. */
export function assertUtf8(raw: Buffer): void {
  if (!isUtf8(raw)) throw invalidUtf8();
}

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * Whether JSON text nests objects and arrays deeper than `max`, read without parsing it (brackets
 * inside strings do not count). Text that is not JSON is left to the parser to refuse.
 */
export function jsonDeeperThan(text: Buffer | string, max = MAX_JSON_DEPTH): boolean {
  const bytes = typeof text === "string" ? Buffer.from(text) : text;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++depth > max) return true;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth--;
    }
  }
  return false;
}

/** A request that carries a body: a non-zero length, or chunks of unknown length. */
const carriesBody = (headers: { "content-length"?: string; "transfer-encoding"?: string }) =>
  headers["transfer-encoding"] !== undefined ||
  (headers["content-length"] !== undefined && headers["content-length"] !== "0");

const charsetOf = (contentType: string | undefined) =>
  /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1]?.toLowerCase();

/**
 * 415 for a body that is not JSON, or not UTF-8 (RFC 8259 asks for UTF-8 between systems; the
 * depth check reads the bytes as UTF-8); a request without a body passes.
 */
const requireJsonBody: RequestHandler = (req, _res, next) => {
  if (!carriesBody(req.headers)) return next();
  const given = req.get("Content-Type");
  if (!req.is(JSON_MEDIA_TYPES)) {
    throw new HttpError(
      415,
      "unsupported_media_type",
      `Request bodies must be JSON, sent with Content-Type: application/json (got ${given ? given.slice(0, 100) : "no Content-Type"})`,
    );
  }
  const charset = charsetOf(given);
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") {
    throw new HttpError(415, "unsupported_charset", "JSON bodies must be UTF-8 (Content-Type: application/json)");
  }
  next();
};

/**
 * The API's body parsing: JSON only (415 otherwise), at most `limit`, well-formed UTF-8 (400
 * invalid_utf8), nested at most MAX_JSON_DEPTH.
 */
export function jsonBody({ limit }: { limit: string }): RequestHandler[] {
  return [
    requireJsonBody,
    express.json({
      limit,
      type: JSON_MEDIA_TYPES,
      verify(_req, _res, raw) {
        assertUtf8(raw);
        if (jsonDeeperThan(raw)) throw jsonTooDeep();
      },
    }),
  ];
}
