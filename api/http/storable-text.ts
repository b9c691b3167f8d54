// PostgreSQL's text and jsonb cannot hold NUL characters or unpaired UTF-16 surrogates. A body
// carrying them is refused here with a 400 naming the place, instead of failing in the database.
import type { RequestHandler } from "express";
import { badRequest } from "./errors.js";

// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The path of the first string (value or key) that cannot be stored, if any. */
export function findUnstorableText(value: unknown): string | undefined {
  // Iterative: a deeply nested body must not exhaust the stack.
  const pending: Array<[unknown, string]> = [[value, "body"]];
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

export const rejectUnstorableText: RequestHandler = (req, _res, next) => {
  const path = findUnstorableText(req.body);
  if (path) {
    throw badRequest("Text with NUL characters or unpaired surrogates cannot be stored", {
      details: [{ path, message: "contains a NUL character or an unpaired surrogate" }],
    });
  }
  next();
};
