// PostgreSQL's text and jsonb cannot hold NUL characters or unpaired UTF-16 surrogates. A request
// carrying them (in its body, query or path) is refused here with a 400 naming the place, instead
// of failing in the database.
import type { RequestHandler } from "express";
import { HttpError } from "./errors.js";

// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The path (from `root`) of the first string, value or key, that cannot be stored, if any. */
export function findUnstorableText(value: unknown, root = "body"): string | undefined {
  // Iterative: a deeply nested body must not exhaust the stack.
  const pending: Array<[unknown, string]> = [[value, root]];
  while (pending.length > 0) {
    const [current, path] = pending.pop()!;
    if (typeof current === "string") {
      if (UNSTORABLE.test(current)) return path;
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => pending.push([item, `${path}[${index}]`]));
    } else if (current !== null && typeof current === "object") {
      for (const [key, item] of Object.entries(current)) {
        if (UNSTORABLE.test(key)) return `${path} (a key)`;
        pending.push([item, `${path}.${key}`]);
      }
    }
  }
  return undefined;
}

/** The 400 for text that cannot be stored, at `path`. */
export const unstorableText = (path: string) =>
  new HttpError(400, "unstorable_text", "Text with NUL characters (\\u0000) or unpaired surrogates cannot be stored", {
    details: [{ path, message: "contains a NUL character (\\u0000) or an unpaired surrogate" }],
  });

/** Throws unstorableText when `value` holds text that cannot be stored. */
export function assertStorable(value: unknown, root: string): void {
  const path = findUnstorableText(value, root);
  if (path) throw unstorableText(path);
}

/** The path with its percent-escapes decoded; as it is when they do not decode (the router says so). */
function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

export const rejectUnstorableText: RequestHandler = (req, _res, next) => {
  if (UNSTORABLE.test(decodedPath(req.path))) throw unstorableText("path");
  assertStorable(req.query, "query");
  assertStorable(req.body, "body");
  next();
};
