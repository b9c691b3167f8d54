// OAuth2 client-credentials tokens (RFC 6749, section 4.4), fetched by the worker through the
// egress guard and kept in memory until shortly before they expire. One cache per worker process:
// a token never leaves it (no database row, no history). A rotated credential has a new revision,
// so its old token is not used again; a 401 makes the caller forget the token it sent.
import type { Clock } from "../../lib/clock.js";
import type { GuardedFetch } from "../../lib/egress/guarded-fetch.js";
import { NodeError } from "../nodes/node-error.js";
import type { OpenedCredential } from "./credentials.service.js";

/** What a token endpoint gets and answers, for a credential of type oauth2_client_credentials. */
interface ClientCredentials {
  token_url: string;
  client_id: string;
  client_secret: string;
  scope?: string;
  audience?: string;
  client_auth: "basic" | "body";
}

interface CachedToken {
  token: string;
  /** When to fetch a new one: shortly before the token expires. */
  refreshAt: number;
}

/** Lifetime of a token whose endpoint does not say (expires_in is only RECOMMENDED). */
const DEFAULT_LIFETIME_MS = 5 * 60_000;
/** How long before expiry a token is replaced: a tenth of its lifetime, at most a minute. */
const refreshMargin = (lifetimeMs: number) => Math.min(60_000, lifetimeMs / 10);
const TOKEN_CALL_TIMEOUT_MS = 30_000;
const TOKEN_RESPONSE_MAX_BYTES = 64 * 1024;
const MAX_CACHED_TOKENS = 1000;

/** The HTTP Basic credentials of a client: id and secret form-encoded first (RFC 6749, 2.3.1). */
export function clientBasicAuth(clientId: string, clientSecret: string): string {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  return Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`, "utf8").toString("base64");
}

/** The token request's form and headers, the client authenticated as the credential says. */
function tokenRequest(data: ClientCredentials): { form: URLSearchParams; headers: Headers } {
  const form = new URLSearchParams({ grant_type: "client_credentials" });
  if (data.scope) form.set("scope", data.scope);
  if (data.audience) form.set("audience", data.audience);
  const headers = new Headers({
    "Content-Type": "application/x-www-form-urlencoded",
    Accept: "application/json",
  });
  if (data.client_auth === "body") {
    form.set("client_id", data.client_id);
    form.set("client_secret", data.client_secret);
  } else {
    headers.set("Authorization", `Basic ${clientBasicAuth(data.client_id, data.client_secret)}`);
  }
  return { form, headers };
}

/** A new token from the credential's endpoint, with when to replace it. */
async function requestToken(
  { fetch, clock }: { fetch: GuardedFetch; clock: Clock },
  credential: OpenedCredential,
  signal?: AbortSignal,
): Promise<CachedToken> {
  const data = credential.data as unknown as ClientCredentials;
  const { form, headers } = tokenRequest(data);
  const url = new URL(data.token_url);
  const where = `The token endpoint ${url.origin}${url.pathname} of credential ${credential.id}`;
  const obtainedAt = clock.now().getTime();
  const response = await fetch(url, {
    method: "POST",
    headers,
    body: form.toString(),
    redirect: "manual",
    signal,
    timeoutMs: TOKEN_CALL_TIMEOUT_MS,
    maxResponseBytes: TOKEN_RESPONSE_MAX_BYTES,
  });
  const body = jsonObjectOf(await response.text());
  if (!response.ok) throw endpointRefusal(where, response.status, body);
  const token = body.access_token;
  if (typeof token !== "string" || token.length === 0) {
    throw new NodeError(`${where} answered without an access_token`, { retryable: false });
  }
  if (typeof body.token_type === "string" && body.token_type.toLowerCase() !== "bearer") {
    throw new NodeError(`${where} issued a "${body.token_type.slice(0, 40)}" token; only bearer tokens are supported`, {
      retryable: false,
    });
  }
  const expiresIn = Number(body.expires_in);
  const lifetimeMs = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn * 1000 : DEFAULT_LIFETIME_MS;
  return { token, refreshAt: obtainedAt + lifetimeMs - refreshMargin(lifetimeMs) };
}

/** The answer's JSON object, or an empty one (not JSON: the callers say what is missing). */
function jsonObjectOf(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object") return parsed as Record<string, unknown>;
  } catch {
    // Not JSON.
  }
  return {};
}

/** An answer outside 2xx: retried unless the endpoint refused for good (4xx but 408 and 429). */
function endpointRefusal(where: string, status: number, body: Record<string, unknown>): NodeError {
  // The OAuth2 error fields only (never the rest of the answer), short.
  const reason = [body.error, body.error_description]
    .filter((part) => typeof part === "string")
    .join(": ")
    .slice(0, 300);
  const final = status < 500 && status !== 408 && status !== 429;
  return new NodeError(`${where} answered ${status}${reason ? ` (${reason})` : ""}`, {
    retryable: !final,
    details: { status },
  });
}

export function createOAuth2Tokens({
  fetch,
  clock,
  maxEntries = MAX_CACHED_TOKENS,
}: {
  fetch: GuardedFetch;
  clock: Clock;
  maxEntries?: number;
}) {
  const cache = new Map<string, CachedToken>();
  const pending = new Map<string, Promise<CachedToken>>();
  const keyOf = (credential: OpenedCredential) => `${credential.id}\u0000${credential.revision}`;

  return {
    /** A token for the credential: the cached one while it is fresh, else a new one (one request at a time). */
    async token(credential: OpenedCredential, signal?: AbortSignal): Promise<string> {
      const key = keyOf(credential);
      const cached = cache.get(key);
      if (cached && clock.now().getTime() < cached.refreshAt) return cached.token;
      let fetching = pending.get(key);
      if (!fetching) {
        fetching = requestToken({ fetch, clock }, credential, signal).finally(() => pending.delete(key));
        pending.set(key, fetching);
      }
      const fresh = await fetching;
      // Tokens of earlier revisions of the credential are dead weight.
      for (const other of cache.keys()) if (other.startsWith(`${credential.id}\u0000`)) cache.delete(other);
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
      cache.set(key, fresh);
      return fresh.token;
    },

    /** After a 401 with `token`: fetch a new one next time (unless another call already did). */
    forget(credential: OpenedCredential, token: string): void {
      const key = keyOf(credential);
      if (cache.get(key)?.token === token) cache.delete(key);
    },
  };
}

export type OAuth2Tokens = ReturnType<typeof createOAuth2Tokens>;
