// The egress guard: the one way the product reaches other hosts (HTTP nodes, webhooks, model
// providers). Node's global fetch cannot take a custom connector, so the guard uses undici (the
// same client, as a library) with a connector that checks the address it actually connects to:
// after DNS resolution, at connect time, on every redirect hop. A lookup before the request gives
// an early, clear error; the connect-time check is what defeats DNS rebinding.
import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupAddress } from "node:dns";
import { isIP, type LookupFunction, type Socket } from "node:net";
import { Agent, buildConnector, fetch as undiciFetch } from "undici";
import { parseAddress, parseAllowlist, refusedRange, type Allowlist } from "./address-policy.js";

/** A refused destination: never retried, the message names the rule. */
export class EgressRefusedError extends Error {
  override name = "EgressRefusedError";
  constructor(
    message: string,
    readonly rule: string,
  ) {
    super(message);
  }
}

/** A response over a limit (size or redirects): the same request would fail the same way. */
export class EgressLimitError extends Error {
  override name = "EgressLimitError";
}

/** A time limit ran out: worth retrying. */
export class EgressTimeoutError extends Error {
  override name = "EgressTimeoutError";
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export interface EgressOptions {
  /** EGRESS_ALLOWLIST text. */
  allowlist?: string;
  /** Total time of a call, response body included. */
  timeoutMs: number;
  maxResponseBytes: number;
  /** At most 5. */
  maxRedirects: number;
  /** DNS resolution; tests hand in a stub to play DNS rebinding. */
  resolve?: Resolver;
}

export interface GuardedRequestInit extends RequestInit {
  /** Per-call limits, never above the guard's own. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Headers that carry a credential: dropped, like Authorization, on a redirect to another origin. */
  sensitiveHeaders?: readonly string[];
}

export type GuardedFetch = (url: string | URL, init?: GuardedRequestInit) => Promise<Response>;

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Headers that must not follow a redirect to another origin.
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/** "loopback address" as "loopback addresses", "private address (RFC 1918)" as "private addresses (RFC 1918)". */
const plural = (rule: string) => rule.replace(/\baddress\b/, "addresses");

const defaultResolve: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface EgressGuard {
  fetch: GuardedFetch;
  /** Throws EgressRefusedError unless the URL may be called (scheme, credentials, address). */
  check(url: URL): Promise<void>;
  close(): Promise<void>;
}

export function createEgressGuard(options: EgressOptions): EgressGuard {
  const allowlist: Allowlist = parseAllowlist(options.allowlist);
  const resolve = options.resolve ?? defaultResolve;
  const maxRedirects = Math.min(options.maxRedirects, MAX_REDIRECTS);

  const refusal = (host: string, address: string): EgressRefusedError | undefined => {
    const parsed = parseAddress(address);
    if (!parsed) return new EgressRefusedError(`Refused ${host}: "${address}" is not an IP address`, "address");
    if (allowlist.allowsAddress(parsed)) return undefined;
    const rule = refusedRange(parsed);
    if (!rule) return undefined;
    const shown = host === address ? address : `${host} (${address})`;
    return new EgressRefusedError(
      `Refused a call to ${shown}: ${plural(rule)} are not reachable from flows (EGRESS_ALLOWLIST lets one through)`,
      rule,
    );
  };

  // Runs inside net.connect: whatever the resolver answers now is what gets checked.
  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname)
      .then((addresses) => {
        if (!allowlist.allowsHost(hostname)) {
          for (const { address } of addresses) {
            const error = refusal(hostname, address);
            if (error) throw error;
          }
        }
        const family = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : undefined;
        const usable = addresses.filter((a) => family === undefined || a.family === family);
        if (usable.length === 0) throw Object.assign(new Error(`No address for ${hostname}`), { code: "ENOTFOUND" });
        if (lookupOptions.all) (callback as (e: null, a: LookupAddress[]) => void)(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, "", 0));
  };

  const connect = buildConnector({ lookup: guardedLookup, timeout: options.timeoutMs });
  const agent = new Agent({
    connect(connectOptions, callback) {
      connect(connectOptions, (error, socket) => {
        if (error) return callback(error, null);
        // The last word: the peer address of the open socket (covers IP literals, which skip lookup).
        const remote = (socket as Socket).remoteAddress ?? "";
        const host = connectOptions.hostname.replace(/^\[|\]$/g, "");
        const refused = allowlist.allowsHost(host) ? undefined : refusal(host, remote);
        if (refused) {
          socket!.destroy();
          return callback(refused, null);
        }
        callback(null, socket!);
      });
    },
  });

  async function check(url: URL): Promise<void> {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new EgressRefusedError(`Refused ${url.protocol} URL: only http and https are allowed`, "scheme");
    }
    if (url.username || url.password) {
      throw new EgressRefusedError("Refused a URL with credentials in it: send them in a header", "credentials");
    }
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (allowlist.allowsHost(host)) return;
    if (isIP(host)) {
      const error = refusal(host, host);
      if (error) throw error;
      return;
    }
    let addresses: LookupAddress[];
    try {
      addresses = await resolve(host);
    } catch (error) {
      throw new Error(`Could not resolve ${host}: ${(error as Error).message}`, { cause: error });
    }
    for (const { address } of addresses) {
      const error = refusal(host, address);
      if (error) throw error;
    }
  }

  async function guardedFetch(input: string | URL, init: GuardedRequestInit = {}): Promise<Response> {
    const { timeoutMs: callTimeout, maxResponseBytes: callCap, sensitiveHeaders = [], ...requestInit } = init;
    const timeoutMs = Math.min(callTimeout ?? options.timeoutMs, options.timeoutMs);
    const cap = Math.min(callCap ?? options.maxResponseBytes, options.maxResponseBytes);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = requestInit.signal ? AbortSignal.any([requestInit.signal, timeout]) : timeout;
    const follow = (requestInit.redirect ?? "follow") === "follow";
    if (!URL.canParse(String(input))) throw new EgressRefusedError(`"${String(input)}" is not a valid URL`, "url");
    let url = new URL(input);
    let method = (requestInit.method ?? "GET").toUpperCase();
    let body = requestInit.body;
    const headers = new Headers(requestInit.headers);
    try {
      for (let hop = 0; ; hop++) {
        await check(url);
        const response = await undiciFetch(url, {
          method,
          headers: Object.fromEntries(headers),
          body: body as never,
          redirect: "manual",
          signal,
          dispatcher: agent,
        });
        const location = response.headers.get("location");
        if (!follow || !REDIRECT_STATUSES.has(response.status) || !location) {
          return limitBody(response as unknown as Response, cap, timeout);
        }
        await response.body?.cancel();
        if (hop >= maxRedirects) throw new EgressLimitError(`Stopped after ${maxRedirects} redirects (at ${url.href})`);
        const next = new URL(location, url);
        if (next.origin !== url.origin)
          for (const name of [...CREDENTIAL_HEADERS, ...sensitiveHeaders]) headers.delete(name);
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
          method = method === "HEAD" ? "HEAD" : "GET";
          body = undefined;
          headers.delete("content-type");
          headers.delete("content-length");
        }
        url = next;
      }
    } catch (error) {
      throw unwrap(error, timeout, timeoutMs);
    }
  }

  return { fetch: guardedFetch, check, close: () => agent.close() };
}

/** undici reports connector errors as "fetch failed" with the reason as cause: surface ours. */
function unwrap(error: unknown, timeout: AbortSignal, timeoutMs: number): unknown {
  let current = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    if (current instanceof EgressRefusedError || current instanceof EgressLimitError) return current;
    current = current.cause;
  }
  if (timeout.aborted) return new EgressTimeoutError(`No complete answer within ${timeoutMs} ms`);
  return error;
}

/** The response, with a body that errors once it passes the cap or the time runs out. */
function limitBody(response: Response, cap: number, timeout: AbortSignal): Response {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > cap) {
    void response.body?.cancel();
    throw new EgressLimitError(`Response of ${declared} bytes is over the limit of ${cap} bytes`);
  }
  if (!response.body) return response;
  let received = 0;
  const limited = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        received += chunk.byteLength;
        if (received > cap) {
          controller.error(new EgressLimitError(`Response is over the limit of ${cap} bytes; reading stopped`));
          return;
        }
        controller.enqueue(chunk);
      },
    }),
    { signal: timeout },
  );
  return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
}
