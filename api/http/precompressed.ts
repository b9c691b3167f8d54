// The build's compressed copies of a file (`app.js.br`, `app.js.gz`, made by web/precompress.ts):
// for a browser that accepts one, the request is pointed at the copy before express.static serves
// it, with the original's Content-Type and the copy's Content-Encoding.
import { existsSync } from "node:fs";
import path from "node:path";
import type { RequestHandler } from "express";

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};
const SUFFIX: Record<string, string> = { br: ".br", gzip: ".gz" };

/**
 * Brotli when the browser takes it (smaller by a fifth or so), else gzip, else undefined. Browsers
 * send `gzip, deflate, br, zstd` with no weights, so the server's preference decides, as RFC 9110
 * leaves it to; a weight of 0 refuses a coding, and `*` stands for those not named.
 */
export function preferredEncoding(header: string | undefined): "br" | "gzip" | undefined {
  const weights = new Map<string, number>();
  for (const part of (header ?? "").split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(name, Number.isFinite(weight) ? weight : 0);
  }
  const takes = (coding: string) => (weights.get(coding) ?? weights.get("*") ?? 0) > 0;
  return takes("br") ? "br" : takes("gzip") ? "gzip" : undefined;
}

export function precompressedVariant(dir: string): RequestHandler {
  const root = path.resolve(dir);
  return (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const type = TYPES[path.extname(req.path)];
    if (!type) return next();
    // Cached answers differ by what the browser accepts, compressed copy or not.
    res.vary("Accept-Encoding");
    const encoding = preferredEncoding(req.get("Accept-Encoding"));
    if (!encoding) return next();
    let file: string;
    try {
      file = path.resolve(root, `.${decodeURIComponent(req.path)}`);
    } catch {
      return next();
    }
    const suffix = SUFFIX[encoding]!;
    if (!file.startsWith(root + path.sep) || !existsSync(file) || !existsSync(file + suffix)) return next();
    res.set({ "Content-Type": type, "Content-Encoding": encoding });
    req.url = `${req.path}${suffix}`;
    next();
  };
}
