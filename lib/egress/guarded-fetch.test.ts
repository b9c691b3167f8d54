// The guard against real servers on loopback: refused calls must never reach them.
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startLoopbackServer, type LoopbackServer } from "../../test/helpers/loopback-server.js";
import {
  createEgressGuard,
  EgressLimitError,
  EgressRefusedError,
  EgressTimeoutError,
  type EgressGuard,
  type EgressOptions,
} from "./guarded-fetch.js";

interface TestServer extends LoopbackServer {
  hits: string[];
}

/** A loopback server that records every request it sees. */
async function startServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const hits: string[] = [];
  const server = await startLoopbackServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  return { ...server, hits };
}

const guards: EgressGuard[] = [];
const guard = (options: Partial<EgressOptions> = {}) => {
  const created = createEgressGuard({ timeoutMs: 5000, maxResponseBytes: 1024 * 1024, maxRedirects: 5, ...options });
  guards.push(created);
  return created;
};

let target: TestServer;
let redirector: TestServer;
let endless: TestServer;

beforeAll(async () => {
  target = await startServer((req, res) => {
    if (req.url === "/big") {
      res.writeHead(200, { "Content-Type": "text/plain", "Content-Length": String(64 * 1024) });
      res.end("x".repeat(64 * 1024));
      return;
    }
    if (req.url === "/headers") {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(req.headers));
      return;
    }
    if (req.url === "/slow") {
      const timer = setTimeout(() => res.end("late"), 3000);
      res.on("close", () => clearTimeout(timer));
      return;
    }
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ ok: true, path: req.url }));
  });
  redirector = await startServer((req, res) => {
    const url = new URL(req.url!, "http://x");
    if (url.pathname === "/loop") {
      res.writeHead(302, { Location: `/loop?n=${Number(url.searchParams.get("n") ?? 0) + 1}` });
    } else {
      res.writeHead(302, { Location: url.searchParams.get("to")! });
    }
    res.end();
  });
  // Streams without a length until the client goes away (at most 20 s or 64 MiB).
  endless = await startServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "application/octet-stream" });
    const chunk = Buffer.alloc(16 * 1024, 120);
    let sent = 0;
    const started = Date.now();
    const pump = () => {
      while (!res.destroyed && sent < 64 * 1024 * 1024 && Date.now() - started < 20_000) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", pump);
      }
      res.end();
    };
    pump();
  });
});

afterAll(async () => {
  for (const s of [target, redirector, endless]) s.close();
});

afterEach(async () => {
  await Promise.all(guards.splice(0).map((g) => g.close()));
});

describe("egress guard", () => {
  it("refuses every spelling of a loopback or private target, and the server sees zero hits", async () => {
    const port = target.port;
    const urls = [
      `http://127.0.0.1:${port}/`,
      `http://127.1:${port}/`,
      `http://0x7f.1:${port}/`,
      `http://0x7f000001:${port}/`,
      `http://2130706433:${port}/`,
      `http://017700000001:${port}/`,
      `http://0177.0.0.1:${port}/`,
      `http://0.0.0.0:${port}/`,
      `http://0:${port}/`,
      `http://[::1]:${port}/`,
      `http://[::]:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://[::ffff:7f00:1]:${port}/`,
      `http://localhost:${port}/`,
    ];
    const egress = guard();
    for (const url of urls) {
      const failure = await egress.fetch(url).catch((error: unknown) => error);
      expect(failure, url).toBeInstanceOf(EgressRefusedError);
      expect((failure as Error).message).toMatch(
        /: (loopback|unspecified) addresses are not reachable from flows \(EGRESS_ALLOWLIST lets one through\)$/,
      );
    }
    // Each rule reads as a plural, whatever its name ends with.
    const privateFailure = await egress.fetch("http://10.0.0.1/").catch((error: unknown) => error);
    expect((privateFailure as Error).message).toBe(
      "Refused a call to 10.0.0.1: private addresses (RFC 1918) are not reachable from flows (EGRESS_ALLOWLIST lets one through)",
    );
    expect(target.hits).toEqual([]);

    // The same server is reachable once it is allow-listed: the refusals above were the guard's.
    const allowed = guard({ allowlist: "127.0.0.1" });
    const response = await allowed.fetch(`http://127.0.0.1:${port}/ping`);
    expect(await response.json()).toEqual({ ok: true, path: "/ping" });
    expect(target.hits).toEqual(["GET /ping"]);
    target.hits.length = 0;
  });

  it("refuses IPv6 literals that carry a loopback IPv4 address before dialling them, allow-listed or not, and on a redirect hop", async () => {
    const port = target.port;
    const carriers = {
      "IPv4-compatible": `http://[::127.0.0.1]:${port}/`,
      "IPv4-compatible, in hex": `http://[::7f00:1]:${port}/`,
      "IPv4-translated": `http://[::ffff:0:127.0.0.1]:${port}/`,
      NAT64: `http://[64:ff9b::127.0.0.1]:${port}/`,
      "6to4": `http://[2002:7f00:1::]:${port}/`,
      Teredo: `http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:${port}/`,
    };
    // 127.0.0.1 allow-listed lets 127.0.0.1 through, not an IPv6 address that carries it.
    for (const egress of [guard(), guard({ allowlist: "127.0.0.1" })]) {
      for (const [form, url] of Object.entries(carriers)) {
        const started = Date.now();
        const failure = await egress.fetch(url).catch((error: unknown) => error);
        expect(failure, form).toBeInstanceOf(EgressRefusedError);
        expect((failure as Error).message, form).toMatch(
          /: loopback addresses inside an? [\w -]+ address \(127\.0\.0\.1\) are not reachable from flows/,
        );
        // Refused before any connection: no dial that times out.
        expect(Date.now() - started, form).toBeLessThan(1000);
      }
    }
    const hop = await guard({ allowlist: "127.0.0.1" })
      .fetch(`http://127.0.0.1:${redirector.port}/?to=${encodeURIComponent(carriers["IPv4-compatible"])}`)
      .catch((error: unknown) => error);
    expect(hop).toBeInstanceOf(EgressRefusedError);
    expect(redirector.hits).toHaveLength(1);
    expect(target.hits).toEqual([]);
    redirector.hits.length = 0;
  });

  it("refuses schemes other than http and https, credentials in URLs and malformed URLs", async () => {
    const egress = guard({ allowlist: "127.0.0.1" });
    for (const [url, rule] of [
      ["file:///etc/passwd", "scheme"],
      ["ftp://127.0.0.1/", "scheme"],
      ["data:text/plain,hi", "scheme"],
      ["gopher://127.0.0.1:70/", "scheme"],
      [`http://user:secret@127.0.0.1:${target.port}/`, "credentials"],
      ["http://[::1/", "url"],
    ]) {
      const failure = await egress.fetch(url!).catch((error: unknown) => error);
      expect(failure, url).toBeInstanceOf(EgressRefusedError);
      expect((failure as EgressRefusedError).rule).toBe(rule);
    }
    expect(target.hits).toEqual([]);
  });

  it("checks the address at connect time, so DNS rebinding after the first lookup is refused", async () => {
    const answers: string[] = [];
    // First answer public (passes the early check), every later one loopback.
    const resolve = async (hostname: string) => {
      const address = answers.length === 0 ? "93.184.215.14" : "127.0.0.1";
      answers.push(`${hostname}=${address}`);
      return [{ address, family: 4 }];
    };
    const egress = guard({ resolve });
    const failure = await egress.fetch(`http://rebind.test:${target.port}/`).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EgressRefusedError);
    expect((failure as Error).message).toMatch(/rebind\.test \(127\.0\.0\.1\).*loopback/);
    expect(answers).toEqual(["rebind.test=93.184.215.14", "rebind.test=127.0.0.1"]);
    expect(target.hits).toEqual([]);
  });

  it("lets an allow-listed host name through whatever it resolves to", async () => {
    const egress = guard({ allowlist: "*.svc.test", resolve: async () => [{ address: "127.0.0.1", family: 4 }] });
    const response = await egress.fetch(`http://api.svc.test:${target.port}/named`);
    expect(response.status).toBe(200);
    expect(target.hits).toEqual(["GET /named"]);
    target.hits.length = 0;
  });

  it("re-checks every redirect hop: a redirect to loopback is refused", async () => {
    // The redirector is reached through an allow-listed name; its target is plain loopback.
    const egress = guard({ allowlist: "redirector.test", resolve: async () => [{ address: "127.0.0.1", family: 4 }] });
    const to = encodeURIComponent(`http://127.0.0.1:${target.port}/secret`);
    const failure = await egress
      .fetch(`http://redirector.test:${redirector.port}/?to=${to}`)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EgressRefusedError);
    expect((failure as Error).message).toMatch(/127\.0\.0\.1: loopback/);
    expect(redirector.hits).toHaveLength(1);
    expect(target.hits).toEqual([]);
    redirector.hits.length = 0;
  });

  it("drops Authorization, cookies and the headers a call names sensitive on a redirect to another origin", async () => {
    const egress = guard({ allowlist: "127.0.0.1" });
    const to = encodeURIComponent(`http://127.0.0.1:${target.port}/headers`);
    const response = await egress.fetch(`http://127.0.0.1:${redirector.port}/?to=${to}`, {
      headers: { Authorization: "Bearer t", "X-Api-Key": "k", "X-Trace": "kept" },
      sensitiveHeaders: ["x-api-key"],
    });
    const seen = (await response.json()) as Record<string, string>;
    expect(seen.authorization).toBeUndefined();
    expect(seen["x-api-key"]).toBeUndefined();
    expect(seen["x-trace"]).toBe("kept");
    redirector.hits.length = 0;
    target.hits.length = 0;
  });

  it("follows at most 5 redirects", async () => {
    const egress = guard({ allowlist: "127.0.0.1" });
    const failure = await egress.fetch(`http://127.0.0.1:${redirector.port}/loop`).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EgressLimitError);
    expect((failure as Error).message).toMatch(/after 5 redirects/);
    expect(redirector.hits).toHaveLength(6);
    redirector.hits.length = 0;
  });

  it("refuses a response whose declared length is over the cap, and cuts off an endless one", async () => {
    const egress = guard({ allowlist: "127.0.0.1", maxResponseBytes: 32 * 1024 });
    const declared = await egress.fetch(`http://127.0.0.1:${target.port}/big`).catch((error: unknown) => error);
    expect(declared).toBeInstanceOf(EgressLimitError);
    expect((declared as Error).message).toMatch(/65536 bytes is over the limit of 32768/);

    const started = Date.now();
    const response = await egress.fetch(`http://127.0.0.1:${endless.port}/`, { maxResponseBytes: 100_000 });
    const failure = await response.arrayBuffer().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(String((failure as Error).message) + String((failure as Error).cause)).toMatch(/over the limit of 32768/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("ends a call that takes longer than its time limit", async () => {
    const egress = guard({ allowlist: "127.0.0.1" });
    const failure = await egress
      .fetch(`http://127.0.0.1:${target.port}/slow`, { timeoutMs: 300 })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EgressTimeoutError);
    target.hits.length = 0;
  });
});
