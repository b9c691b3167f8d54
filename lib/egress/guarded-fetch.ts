// The egress guard: the one way the product reaches other hosts (HTTP nodes, webhooks, model
// providers). Node's global fetch cannot take a custom connector, so the guard uses undici (the
// same client, as a library) with a connector that checks the address it actually connects to:
// after DNS resolution, at connect time, on every redirect hop (guarded-agent.ts). A lookup before
// the request gives an early, clear error (egress-policy.ts); the connect-time check is what
// defeats DNS rebinding.
import { fetch as undiciFetch, type Agent } from "undici";
import { parseAllowlist } from "./address-policy.js";
import { EgressLimitError, EgressRefusedError, EgressTimeoutError } from "./egress-errors.js";
import { checkDestination, defaultResolve, type EgressPolicy, type Resolver } from "./egress-policy.js";
import { guardedAgent } from "./guarded-agent.js";

export { EgressLimitError, EgressRefusedError, EgressTimeoutError } from "./egress-errors.js";
export type { Resolver } from "./egress-policy.js";

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

export interface EgressGuard {
  fetch: GuardedFetch;
  /** Throws EgressRefusedError unless the URL may be called (scheme, credentials, address). */
  check(url: URL): Promise<void>;
  close(): Promise<void>;
}

export function createEgressGuard(options: EgressOptions): EgressGuard {
  const policy: EgressPolicy = {
    allowlist: parseAllowlist(options.allowlist),
    resolve: options.resolve ?? defaultResolve,
  };
  const guard: FetchGuard = {
    options,
    policy,
    agent: guardedAgent(policy, options.timeoutMs),
    maxRedirects: Math.min(options.maxRedirects, MAX_REDIRECTS),
  };
  return {
    fetch: (input, init) => guardedFetch(guard, input, init),
    check: (url) => checkDestination(policy, url),
    close: () => guard.agent.close(),
  };
}

/** What each call of the guard's fetch uses. */
interface FetchGuard {
  options: EgressOptions;
  policy: EgressPolicy;
  agent: Agent;
  maxRedirects: number;
}

/** One hop of a call: what is sent where. */
interface Hop {
  url: URL;
  method: string;
  body: RequestInit["body"];
  headers: Headers;
}

/** A call within the guard's limits, each redirect hop checked; the response's body capped in size and time. */
async function guardedFetch(guard: FetchGuard, input: string | URL, init: GuardedRequestInit = {}): Promise<Response> {
  const { options, policy, agent, maxRedirects } = guard;
  const { timeoutMs: callTimeout, maxResponseBytes: callCap, sensitiveHeaders = [], ...requestInit } = init;
  const timeoutMs = Math.min(callTimeout ?? options.timeoutMs, options.timeoutMs);
  const cap = Math.min(callCap ?? options.maxResponseBytes, options.maxResponseBytes);
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = requestInit.signal ? AbortSignal.any([requestInit.signal, timeout]) : timeout;
  const follow = (requestInit.redirect ?? "follow") === "follow";
  if (!URL.canParse(String(input))) throw new EgressRefusedError(`"${String(input)}" is not a valid URL`, "url");
  let hop: Hop = {
    url: new URL(input),
    method: (requestInit.method ?? "GET").toUpperCase(),
    body: requestInit.body,
    headers: new Headers(requestInit.headers),
  };
  try {
    for (let count = 0; ; count++) {
      await checkDestination(policy, hop.url);
      const response = await undiciFetch(hop.url, {
        method: hop.method,
        headers: Object.fromEntries(hop.headers),
        body: hop.body as never,
        redirect: "manual",
        signal,
        dispatcher: agent,
      });
      const location = response.headers.get("location");
      if (!follow || !REDIRECT_STATUSES.has(response.status) || !location) {
        return limitBody(response as unknown as Response, cap, timeout);
      }
      await response.body?.cancel();
      if (count >= maxRedirects)
        throw new EgressLimitError(`Stopped after ${maxRedirects} redirects (at ${hop.url.href})`);
      hop = redirected(hop, response.status, location, sensitiveHeaders);
    }
  } catch (error) {
    throw unwrap(error, timeout, timeoutMs);
  }
}

/**
 * The next hop of a redirect: credentials dropped when it leaves the origin, and a 303 (or a
 * POST's 301 or 302) turned into a GET without a body, as browsers do.
 */
function redirected(hop: Hop, status: number, location: string, sensitiveHeaders: readonly string[]): Hop {
  const next = new URL(location, hop.url);
  const { headers } = hop;
  if (next.origin !== hop.url.origin)
    for (const name of [...CREDENTIAL_HEADERS, ...sensitiveHeaders]) headers.delete(name);
  if (status === 303 || ((status === 301 || status === 302) && hop.method === "POST")) {
    headers.delete("content-type");
    headers.delete("content-length");
    return { url: next, method: hop.method === "HEAD" ? "HEAD" : "GET", body: undefined, headers };
  }
  return { ...hop, url: next };
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
