// How the worker hands credentials to nodes (env.credentials): resolved at call time, applied to
// the request by this host code, and never given to the node as values, so that the secret is in
// no workflow input, step log, output, error or history. Each applied credential also knows its
// secret values, to scrub them from whatever the node returns (an API that echoes the headers it
// received, a URL with the key in its query).
import type { Clock } from "../../lib/clock.js";
import type { GuardedFetch } from "../../lib/egress/guarded-fetch.js";
import { CredentialNotFound, CredentialUnreadable } from "../errors.js";
import type { NodeCredential, NodeCredentials } from "../nodes/define-node.js";
import { NodeError } from "../nodes/node-error.js";
import type { CredentialsService, OpenedCredential } from "./credentials.service.js";
import { hostAllowedOnOtherPort, urlAllowed } from "../contracts/host-patterns.js";
import type { CredentialData } from "../contracts/credential-types.js";
import { clientBasicAuth, createOAuth2Tokens, type OAuth2Tokens } from "./oauth2-tokens.js";
import type { ApiKeyStore } from "./ai-keys.js";
import type { AiProvider } from "../ai/providers.js";

export const REDACTED = "[redacted]";
/** Shorter values would match ordinary text: they are sealed and never shown, but not scrubbed. */
const MIN_SCRUBBED_LENGTH = 6;

/** The secrets as one pattern, longest first; undefined when none is long enough to scrub. */
function secretsPattern(secrets: readonly string[]): RegExp | undefined {
  const scrubbed = [...new Set(secrets)]
    .filter((s) => s.length >= MIN_SCRUBBED_LENGTH)
    .sort((a, b) => b.length - a.length)
    .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  // Whatever the case: a server may echo a value lower-cased (header names are).
  return scrubbed.length === 0 ? undefined : new RegExp(scrubbed.join("|"), "gi");
}

/**
 * `value` with every occurrence of each secret replaced by [redacted], in any case, in strings and
 * in object keys at any depth (an API answering `{"Bearer <token>": …}` or echoing a header whose
 * name holds it). An error becomes a new one of the same kind (a NodeError as retryable as it was)
 * with its message and details scrubbed, and without its cause and stack, which may hold the values too.
 */
export function redactSecrets<T>(value: T, secrets: readonly string[]): T {
  const pattern = secretsPattern(secrets);
  const text = (item: string) => (pattern ? item.replace(pattern, REDACTED) : item);
  const walk = (item: unknown): unknown => {
    if (typeof item === "string") return text(item);
    if (item instanceof Error) return scrubbedError(item, walk);
    if (Array.isArray(item)) return item.map(walk);
    if (item !== null && typeof item === "object") {
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [text(key), walk(inner)]));
    }
    return item;
  };
  return walk(value) as T;
}

function scrubbedError(error: Error, scrub: (item: unknown) => unknown): Error {
  const message = scrub(error.message) as string;
  const fresh =
    error instanceof NodeError
      ? new NodeError(message, { retryable: error.retryable, details: scrub(error.details) })
      : new Error(message);
  fresh.name = scrub(error.name) as string;
  // The egress guard's rule name (loopback address, redirects...) stays: it holds no value.
  const { rule } = error as { rule?: unknown };
  return typeof rule === "string" ? Object.assign(fresh, { rule }) : fresh;
}

/** The ways a secret can appear once sent: as it is, form- or URL-encoded. */
const spellings = (secret: string) => [
  secret,
  encodeURIComponent(secret),
  new URLSearchParams({ v: secret }).toString().slice(2),
];

const basic = (username: string, password: string) => Buffer.from(`${username}:${password}`, "utf8").toString("base64");

function applied(credential: OpenedCredential, tokens: OAuth2Tokens): NodeCredential {
  const { id, type } = credential;
  const common = { id, type };
  const fixed = (headerNames: string[], secrets: string[], apply: NodeCredential["apply"]): NodeCredential => ({
    ...common,
    headerNames,
    apply,
    renew: () => false,
    redact: (value) => redactSecrets(value, secrets.flatMap(spellings)),
  });
  switch (type) {
    case "bearer": {
      const { token } = credential.data as CredentialData<"bearer">;
      return fixed(["authorization"], [token], async ({ headers }) => headers.set("Authorization", `Bearer ${token}`));
    }
    case "basic": {
      const { username, password } = credential.data as CredentialData<"basic">;
      const encoded = basic(username, password);
      return fixed(["authorization"], [password, encoded], async ({ headers }) =>
        headers.set("Authorization", `Basic ${encoded}`),
      );
    }
    case "api_key": {
      const { name, value, in: where } = credential.data as CredentialData<"api_key">;
      return fixed(where === "header" ? [name.toLowerCase()] : [], [value], async ({ url, headers }) => {
        if (where === "header") headers.set(name, value);
        else url.searchParams.set(name, value);
      });
    }
    case "headers": {
      const map = (credential.data as CredentialData<"headers">).headers;
      return fixed(
        Object.keys(map).map((name) => name.toLowerCase()),
        Object.values(map),
        async ({ headers }) => {
          for (const [name, value] of Object.entries(map)) headers.set(name, value);
        },
      );
    }
    case "oauth2_client_credentials": {
      const data = credential.data as CredentialData<"oauth2_client_credentials">;
      // Every token this credential sent, to scrub them too.
      const sent: string[] = [];
      const secrets = () => [data.client_secret, clientBasicAuth(data.client_id, data.client_secret), ...sent];
      return {
        ...common,
        headerNames: ["authorization"],
        async apply({ headers }) {
          const token = await tokens.token(credential).catch((error: unknown) => {
            throw redactSecrets(error, secrets().flatMap(spellings));
          });
          if (!sent.includes(token)) sent.push(token);
          headers.set("Authorization", `Bearer ${token}`);
        },
        renew() {
          const last = sent.at(-1);
          if (last === undefined) return false;
          tokens.forget(credential, last);
          return true;
        },
        redact: (value) => redactSecrets(value, secrets().flatMap(spellings)),
      };
    }
    case "ai_provider":
      throw new NodeError(`The credential ${id} is a model provider key: AI nodes use it, not requests`, {
        retryable: false,
      });
  }
}

/**
 * `applied` refusing every request to a host and port outside the credential's allowed_hosts
 * (before it sets anything): a flow cannot send a credential somewhere its owner did not name.
 */
function confinedToHosts(credential: OpenedCredential, applied: NodeCredential): NodeCredential {
  const allowed = (credential.data as { allowed_hosts?: string[] }).allowed_hosts;
  if (!allowed || allowed.length === 0) return applied;
  return {
    ...applied,
    async apply(request) {
      if (!urlAllowed(request.url, allowed)) {
        const { host } = request.url;
        // The host is named but not on this port: say how to allow it.
        const hint = hostAllowedOnOtherPort(request.url, allowed)
          ? ` (an allowed host without a port allows only the scheme's default port: add "${host}" or "${request.url.hostname}:*" to allowed_hosts)`
          : "";
        throw new NodeError(
          `The credential ${credential.id} may only be sent to ${allowed.join(", ")}, not to ${host}${hint}`,
          {
            retryable: false,
          },
        );
      }
      await applied.apply(request);
    },
  };
}

export function createNodeCredentials({
  credentials,
  apiKeys,
  fetch,
  clock,
}: {
  credentials: Pick<CredentialsService, "open">;
  /** The workspace's own provider keys, else the server's: what AI nodes naming no credential use. */
  apiKeys: Pick<ApiKeyStore, "resolve">;
  fetch: GuardedFetch;
  clock: Clock;
}) {
  const tokens = createOAuth2Tokens({ fetch, clock });

  /** The credential, or a node error that says why there is none (not retried: an operator must act). */
  async function open(workspaceId: string, id: string): Promise<OpenedCredential> {
    try {
      return await credentials.open(workspaceId, id);
    } catch (error) {
      if (error instanceof CredentialNotFound) {
        throw new NodeError(
          `The credential ${id} this node uses no longer exists in the workspace (deleted?): choose another in the node's config`,
          { retryable: false },
        );
      }
      if (error instanceof CredentialUnreadable) throw new NodeError(error.message, { retryable: false });
      throw error;
    }
  }

  return {
    /** env.credentials of a node of the workspace. */
    forWorkspace(workspaceId: string): NodeCredentials {
      return {
        async resolve(id, accepts) {
          const credential = await open(workspaceId, id);
          if (!accepts.includes(credential.type)) {
            throw new NodeError(
              `The credential ${id} is a ${credential.type} credential; this node takes ${accepts.join(", ")}`,
              { retryable: false },
            );
          }
          return confinedToHosts(credential, applied(credential, tokens));
        },
      };
    },

    /**
     * The key of a model provider for an AI node or agent: the ai_provider credential it names
     * (a key of that provider), else the workspace's own key, else the server's.
     */
    async aiKey(workspaceId: string, provider: AiProvider, id?: string): Promise<string | undefined> {
      if (id === undefined) {
        // A workspace key this worker cannot open (its key not configured) is no reason to retry.
        return apiKeys.resolve(workspaceId, provider).catch((error: unknown) => {
          if (error instanceof CredentialUnreadable) throw new NodeError(error.message, { retryable: false });
          throw error;
        });
      }
      const credential = await open(workspaceId, id);
      const data = credential.data as Partial<CredentialData<"ai_provider">>;
      if (credential.type !== "ai_provider" || data.provider !== provider) {
        const what =
          credential.type === "ai_provider"
            ? `holds a key for ${data.provider}, not ${provider}`
            : `is a ${credential.type} credential, not a key for ${provider}`;
        throw new NodeError(`The credential ${id} ${what}`, { retryable: false });
      }
      return data.api_key!;
    },
  };
}

export type NodeCredentialsHost = ReturnType<typeof createNodeCredentials>;
