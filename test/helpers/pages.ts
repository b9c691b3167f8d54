// Reading a paged list ({ items, next_cursor }) to its end, a page at a time.
import type { Express } from "express";
import request from "supertest";

/** Every item of a list, following next_cursor from the first page; fails past `maxPages`. */
export async function readAllPages<T = Record<string, unknown>>(
  app: Express,
  cookie: string,
  path: string,
  { maxPages = 20 } = {},
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let pages = 1; pages <= maxPages; pages++) {
    const separator = path.includes("?") ? "&" : "?";
    const res: request.Response = await request(app)
      .get(cursor ? `${path}${separator}cursor=${encodeURIComponent(cursor)}` : path)
      .set("Cookie", cookie);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    items.push(...(res.body as { items: T[] }).items);
    cursor = (res.body as { next_cursor: string | null }).next_cursor;
    if (!cursor) return { items, pages };
  }
  throw new Error(`GET ${path}: still a next_cursor after ${maxPages} pages`);
}
