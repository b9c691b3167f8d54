// The kinds of credential a workspace stores, each with its fields: which are secret (sealed, never
// shown again) and which are not (shown, and bound to the sealed value so they cannot be changed
// under it).
import { z } from "zod";
import { hostPatternSchema } from "./host-patterns.js";
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

/**
 * An absolute http(s) URL of an endpoint the service calls (an OAuth token endpoint, an MCP
 * server), with no user or password in it: `userinfo` says what to do instead.
 */
export const endpointUrlSchema = (userinfo: string) =>
  z
    .string()
    .trim()
    .max(2048)
    .refine((value) => URL.canParse(value), "must be an absolute URL")
    .refine((value) => !URL.canParse(value) || ["http:", "https:"].includes(new URL(value).protocol), {
      message: "must be an http or https URL",
    })
    .refine((value) => !URL.canParse(value) || (!new URL(value).username && !new URL(value).password), {
      message: userinfo,
    });

const tokenUrl = endpointUrlSchema("must not carry credentials");

/**
 * The hosts a credential may be sent to; none: any (as n8n's "allowed domains"). A node calling
 * another host or port with it fails, not retried, and the credential is not applied.
 */
const allowedHosts = z.array(hostPatternSchema).max(50).optional().meta({
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
