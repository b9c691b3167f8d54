// The kinds of credential a workspace stores, each with its fields: which are secret (sealed, never
// shown again) and which are not (shown, and bound to the sealed value so they cannot be changed
// under it).
import { z } from "zod";
import { AI_PROVIDERS } from "../ai/providers.js";

export const CREDENTIAL_TYPES = [
  "bearer",
  "basic",
  "api_key",
  "headers",
  "oauth2_client_credentials",
  "ai_provider",
] as const;
export type CredentialType = (typeof CREDENTIAL_TYPES)[number];

export const credentialIdSchema = z
  .string()
  .regex(/^cred_[0-9a-f]{24}$/, { message: "must be a credential id (cred_…)" });

/** Headers a credential may not set: they describe the message, not who sends it. */
const RESERVED_HEADERS = new Set(["host", "content-length", "content-type", "transfer-encoding", "connection"]);

/** A secret as it travels in a header or a query string: one line. */
const secret = z
  .string()
  .min(1)
  .max(8192)
  .regex(/^[^\r\n\0]*$/, "must be one line");

const headerName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/, "must be made of letters, digits and !#$%&'*+.^_`|~- (a header name)")
  .refine((name) => !RESERVED_HEADERS.has(name.toLowerCase()), "is a header a credential may not set");

const tokenUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((value) => URL.canParse(value), "must be an absolute URL")
  .refine((value) => !URL.canParse(value) || ["http:", "https:"].includes(new URL(value).protocol), {
    message: "must be an http or https URL",
  })
  .refine((value) => !URL.canParse(value) || (!new URL(value).username && !new URL(value).password), {
    message: "must not carry credentials",
  });

/** A port after a host: a number, or `*` for any. */
const PORT = String.raw`(:([1-9][0-9]{0,4}|\*))?`;
const HOST_NAME = String.raw`(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*`;
const HOST_PATTERN = new RegExp(`^${HOST_NAME}${PORT}$|^\\[[0-9a-f:.]+\\]${PORT}$|^[0-9a-f]*:[0-9a-f:.]*:[0-9a-f:.]*$`);

/**
 * A host a credential may be sent to: a name, `*.` and a name (its subdomains), or an IP address
 * (IPv6 in brackets when it has a port), with `:port` for one port or `:*` for any; without a
 * port, only the URL scheme's default one (443 for https, 80 for http).
 */
const hostPattern = z
  .string()
  .trim()
  .toLowerCase()
  .regex(HOST_PATTERN, {
    message:
      "must be a host name (api.example.com), *. and a name (*.example.com), or an IP address, optionally with :port or :* (api.example.com:8443)",
  })
  .refine((pattern) => Number(/:(\d+)$/.exec(pattern)?.[1] ?? 1) <= 65_535, "has a port over 65535")
  .refine((pattern) => {
    const ipv6 = /^\[([^\]]+)\]|^(.*:.*:.*)$/.exec(pattern);
    return !ipv6 || URL.canParse(`http://[${ipv6[1] ?? ipv6[2]}]/`);
  }, "is not an IPv6 address");

/**
 * The hosts a credential may be sent to; none: any (as n8n's "allowed domains"). A node calling
 * another host or port with it fails, not retried, and the credential is not applied.
 */
const allowedHosts = z.array(hostPattern).max(50).optional().meta({
  description:
    "Hosts the credential may be sent to (api.example.com, *.example.com, api.example.com:8443, 127.0.0.1:*); without a port only the URL scheme's default one; absent or empty: any",
});

/** What each type holds, as a request gives it (secret fields included). */
export const credentialDataSchemas = {
  bearer: z.strictObject({
    token: secret.meta({ description: "Sent as Authorization: Bearer <token>" }),
    allowed_hosts: allowedHosts,
  }),
  basic: z.strictObject({
    allowed_hosts: allowedHosts,
    username: z
      .string()
      .min(1)
      .max(1024)
      .regex(/^[^:\r\n\0]*$/, "must be one line without a colon"),
    password: secret,
  }),
  api_key: z.strictObject({
    allowed_hosts: allowedHosts,
    name: headerName.meta({ description: "The header or query parameter that carries the key" }),
    value: secret,
    in: z.enum(["header", "query"]).default("header"),
  }),
  headers: z.strictObject({
    allowed_hosts: allowedHosts,
    headers: z
      .record(headerName, secret)
      .refine((map) => Object.keys(map).length >= 1 && Object.keys(map).length <= 20, "must name 1 to 20 headers")
      .refine(
        (map) => new Set(Object.keys(map).map((name) => name.toLowerCase())).size === Object.keys(map).length,
        "must not name a header twice",
      ),
  }),
  oauth2_client_credentials: z.strictObject({
    allowed_hosts: allowedHosts,
    token_url: tokenUrl,
    client_id: z
      .string()
      .min(1)
      .max(1024)
      .regex(/^[^\r\n\0]*$/, "must be one line"),
    client_secret: secret,
    scope: z.string().max(2048).optional(),
    audience: z.string().max(2048).optional(),
    /** How the client authenticates at the token endpoint: HTTP Basic (the RFC's default) or form fields. */
    client_auth: z.enum(["basic", "body"]).default("basic"),
  }),
  ai_provider: z.strictObject({
    provider: z.enum(AI_PROVIDERS),
    api_key: z
      .string()
      .trim()
      .min(8)
      .max(500)
      .regex(/^[\x21-\x7e]+$/, "printable ASCII without spaces"),
  }),
} as const satisfies Record<CredentialType, z.ZodObject>;

/** An allowed_hosts entry read: the host as URL spells it, and its port ("" the scheme's default, "*" any). */
function parseHostPattern(pattern: string): { host: string; port: string; subdomains: boolean } {
  const text = pattern.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::(\d+|\*))?$/.exec(text);
  // Two colons or more without brackets: an IPv6 address, which then has no port.
  const [host, port] = bracketed
    ? [`[${bracketed[1]}]`, bracketed[2] ?? ""]
    : text.split(":").length > 2
      ? [`[${text}]`, ""]
      : [text.split(":")[0]!, text.split(":")[1] ?? ""];
  const subdomains = host.startsWith("*.");
  const name = subdomains ? host.slice(2) : host;
  // As URL spells it (IPv6 compressed, IPv4 in dotted decimal), so that spellings of one address match.
  const spelled = URL.canParse(`http://${name}/`) ? new URL(`http://${name}/`).hostname : name;
  return { host: spelled.replace(/\.$/, ""), port, subdomains };
}

/** The URL's port, or its scheme's default one when it names none. */
const portOf = (url: URL) => url.port || (url.protocol === "https:" ? "443" : url.protocol === "http:" ? "80" : "");

/** Whether `url`'s host matches the entry's (its subdomains for a `*.` entry), whatever the port. */
function hostMatches(url: URL, entry: ReturnType<typeof parseHostPattern>): boolean {
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  return entry.subdomains ? host.endsWith(`.${entry.host}`) : host === entry.host;
}

/** Whether the entry's port allows `url`'s: any (`*`), that one, or (none given) the scheme's default. */
function portMatches(url: URL, entry: ReturnType<typeof parseHostPattern>): boolean {
  if (entry.port === "*") return true;
  return entry.port === "" ? url.port === "" : entry.port === portOf(url);
}

/**
 * Whether `url` may receive a credential whose allowed_hosts is `allowed` (any URL when none):
 * its host is an entry's (a `*.` entry: its subdomains) and its port that entry's port, any port
 * for `:*`, the scheme's default for an entry without one.
 */
export function urlAllowed(url: URL, allowed: readonly string[] | undefined): boolean {
  if (!allowed || allowed.length === 0) return true;
  return allowed.map(parseHostPattern).some((entry) => hostMatches(url, entry) && portMatches(url, entry));
}

/** Whether `url`'s host is one of `allowed` on some port: the refusal then names the port. */
export function hostAllowedOnOtherPort(url: URL, allowed: readonly string[]): boolean {
  return allowed.map(parseHostPattern).some((entry) => hostMatches(url, entry) && !portMatches(url, entry));
}

export type CredentialData<T extends CredentialType = CredentialType> = z.output<(typeof credentialDataSchemas)[T]>;

/** The fields of each type that are secret. */
const SECRET_FIELDS: Record<CredentialType, string> = {
  bearer: "token",
  basic: "password",
  api_key: "value",
  headers: "headers",
  oauth2_client_credentials: "client_secret",
  ai_provider: "api_key",
};

/** A secret shows its last four characters only when it is long enough to keep most of it hidden. */
const LAST4_MIN_LENGTH = 12;

export interface SplitCredential {
  /** Shown in lists and bound to the sealed value. */
  fields: Record<string, unknown>;
  /** Sealed; never shown. */
  secret: Record<string, unknown>;
  last4: string | null;
}

/** Parts a credential's data into what is shown and what is sealed. */
export function splitCredential(type: CredentialType, data: Record<string, unknown>): SplitCredential {
  const secretField = SECRET_FIELDS[type];
  const { [secretField]: secretValue, ...fields } = data;
  const main =
    typeof secretValue === "string"
      ? secretValue
      : Object.values(secretValue as Record<string, string>).length === 1
        ? Object.values(secretValue as Record<string, string>)[0]!
        : "";
  if (type === "headers") fields.header_names = Object.keys(secretValue as Record<string, string>);
  return {
    fields,
    secret: { [secretField]: secretValue },
    last4: main.length >= LAST4_MIN_LENGTH ? main.slice(-4) : null,
  };
}

/** The whole data again, from what was shown and what was sealed. */
export function joinCredential(
  fields: Record<string, unknown>,
  secret: Record<string, unknown>,
): Record<string, unknown> {
  // header_names is derived from the headers themselves.
  const { header_names: _names, ...rest } = fields;
  return { ...rest, ...secret };
}

export const isCredentialType = (value: string): value is CredentialType =>
  (CREDENTIAL_TYPES as readonly string[]).includes(value);
