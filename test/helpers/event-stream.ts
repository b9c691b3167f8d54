// Server-sent events as a client reads them: an app served on a free loopback port for the file's
// tests, and a request whose `event:`/`data:` blocks are collected as they come.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import { afterAll, beforeAll } from "vitest";

/** Serves `app()` on loopback from beforeAll to afterAll; `base()` is its URL once listening. */
export function useLoopbackServer(app: () => Express): { base(): string } {
  let server: http.Server | undefined;
  let base = "";
  beforeAll(async () => {
    server = app().listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server!.once("listening", () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });
  return { base: () => base };
}

export interface StreamEvent {
  event: string;
  data: Record<string, unknown>;
}

/**
 * Sends the request and collects the answer's events until it closes (at most 60 s); `events`
 * fills as they arrive. `abort()` hangs up as a client that goes away (`closed` then resolves).
 */
export function openEventStream(
  url: string,
  init: { method?: string; headers?: http.OutgoingHttpHeaders; body?: object } = {},
) {
  const events: StreamEvent[] = [];
  let status = 0;
  let contentType = "";
  let hangUp = () => {};
  const closed = new Promise<void>((resolve, reject) => {
    const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
    const headers = {
      ...init.headers,
      ...(payload ? { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload) } : {}),
    };
    const req = http.request(url, { method: init.method ?? "GET", headers }, (res) => {
      status = res.statusCode ?? 0;
      contentType = String(res.headers["content-type"] ?? "");
      let buffer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data: JSON.parse(data) as Record<string, unknown> });
        }
      });
      res.on("end", () => resolve());
      res.on("error", reject);
    });
    let aborted = false;
    hangUp = () => {
      aborted = true;
      req.destroy();
      resolve();
    };
    req.on("error", (error) => (aborted ? resolve() : reject(error)));
    req.setTimeout(60_000, () => req.destroy(new Error("event stream still open after 60 s")));
    req.end(payload);
  });
  return { events, closed, status: () => status, contentType: () => contentType, abort: () => hangUp() };
}

/** Waits until `check` holds, reading it every 100 ms for at most 15 s. */
export async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 150; tries++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no ${what} within 15 s`);
}
