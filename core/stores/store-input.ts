// Input checks of the workspace stores (keys, JSON values, limits, object puts and lists). Bad
// input fails the node at once (not retried): the same input would fail again.
import { createHash } from "node:crypto";
import { MAX_KEY_LENGTH, OBJECT_LIMITS } from "../nodes/shared/data-limits.js";
import { NodeError } from "../nodes/node-error.js";

export function invalidInput(message: string): NodeError {
  return new NodeError(message, { retryable: false });
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True for text PostgreSQL cannot store: NUL characters, unpaired UTF-16 surrogates. */
export const isUnstorableText = (text: string) => text.includes("\u0000") || UNPAIRED_SURROGATE.test(text);

/** A KV or object key: 1..512 characters of well-formed text without NUL (PostgreSQL text refuses it). */
export function checkKey(key: unknown, what = "key"): string {
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw invalidInput(`${what} must be a string of 1 to ${MAX_KEY_LENGTH} characters`);
  }
  if (isUnstorableText(key)) {
    throw invalidInput(`${what} must not contain NUL characters or unpaired surrogates`);
  }
  return key;
}

// JSON.stringify escapes NUL and lone surrogates; PostgreSQL's jsonb refuses both. An escape is
// one preceded by an even number of backslashes (`\\u0000` is a backslash, then text).
const UNSTORABLE_ESCAPE = /(?<!\\)(?:\\\\)*\\(?:u0000|ud[89a-f][0-9a-f]{2})/i;

/**
 * The JSON text of a value to store, checked against a size cap. `undefined`, functions and
 * symbols have no JSON form; NaN and Infinity would silently become null, so they are refused.
 */
export function jsonText(value: unknown, what: string, maxBytes: number): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value, (_key, item: unknown) => {
      if (typeof item === "number" && !Number.isFinite(item)) throw invalidInput(`${what}: ${item} is not JSON`);
      if (typeof item === "bigint") throw invalidInput(`${what}: a bigint is not JSON`);
      return item;
    });
  } catch (error) {
    if (error instanceof NodeError) throw error;
    throw invalidInput(`${what} is not JSON: ${(error as Error).message}`);
  }
  if (text === undefined) throw invalidInput(`${what} is not a JSON value`);
  if (UNSTORABLE_ESCAPE.test(text)) {
    throw invalidInput(`${what} contains a NUL character or an unpaired surrogate, which cannot be stored`);
  }
  const bytes = Buffer.byteLength(text);
  if (bytes > maxBytes) throw invalidInput(`${what} is ${bytes} bytes of JSON; at most ${maxBytes} are allowed`);
  return text;
}

/** An integer option within bounds, or its default when absent. */
export function intOption(value: unknown, what: string, bounds: { min: number; max: number; default: number }): number {
  if (value === undefined || value === null) return bounds.default;
  if (typeof value !== "number" || !Number.isInteger(value) || value < bounds.min || value > bounds.max) {
    throw invalidInput(`${what} must be an integer from ${bounds.min} to ${bounds.max}`);
  }
  return value;
}

export const DEFAULT_CONTENT_TYPE = "application/octet-stream";

// type/subtype with optional parameters, printable ASCII only (it is sent back as a header value).
const CONTENT_TYPE = /^[A-Za-z0-9][\w!#$&^.+-]*\/[A-Za-z0-9][\w!#$&^.+-]*(\s*;[\x20-\x7e]*)?$/;

/** What put() checks before either backend stores anything. */
export function checkPut(
  key: string,
  body: Uint8Array,
  contentType: string | undefined,
  maxBytes: number,
): { contentType: string; etag: string } {
  checkKey(key);
  if (!(body instanceof Uint8Array)) throw invalidInput("the object body must be bytes");
  if (body.byteLength > maxBytes) {
    throw invalidInput(`the object is ${body.byteLength} bytes; at most ${maxBytes} are allowed (OBJECT_MAX_BYTES)`);
  }
  const type = contentType ?? DEFAULT_CONTENT_TYPE;
  if (type.length > OBJECT_LIMITS.maxContentTypeLength || !CONTENT_TYPE.test(type)) {
    throw invalidInput(`content type "${type.slice(0, 100)}" is not a media type such as text/plain or image/png`);
  }
  return { contentType: type, etag: createHash("sha256").update(body).digest("hex") };
}

/** list() options, checked: prefix and after are key-like, limit within bounds. */
export function checkList(options: { prefix?: string; limit?: number; after?: string }) {
  const prefix = options.prefix ?? "";
  if (prefix !== "") checkKey(prefix, "prefix");
  if (options.after !== undefined) checkKey(options.after, "after");
  const limit = intOption(options.limit, "limit", {
    min: 1,
    max: OBJECT_LIMITS.maxListLimit,
    default: OBJECT_LIMITS.defaultListLimit,
  });
  return { prefix, limit, after: options.after };
}
