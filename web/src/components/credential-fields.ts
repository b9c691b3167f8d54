// The fields of each credential type as the dashboard asks for them, and from what a person typed
// to the `data` the API takes. Secret fields are typed once and never shown again.

export interface CredentialFieldSpec {
  key: string;
  label: string;
  /** Typed in a password field; what a rotation asks for again. */
  secret?: boolean;
  optional?: boolean;
  options?: string[];
  placeholder?: string;
  /** Several lines: `Name: value` headers. */
  lines?: boolean;
  /** A comma-separated list (allowed hosts). */
  list?: boolean;
}

/** Where a credential may be sent (every type a request carries). */
const ALLOWED_HOSTS: CredentialFieldSpec = {
  key: "allowed_hosts",
  label: "Allowed hosts (comma separated; empty: any)",
  optional: true,
  list: true,
  placeholder: "api.example.com, *.example.com",
};

export const CREDENTIAL_FORMS: Record<string, { label: string; fields: CredentialFieldSpec[] }> = {
  bearer: { label: "Bearer token", fields: [{ key: "token", label: "Token", secret: true }, ALLOWED_HOSTS] },
  basic: {
    label: "Basic auth",
    fields: [
      { key: "username", label: "Username" },
      { key: "password", label: "Password", secret: true },
      ALLOWED_HOSTS,
    ],
  },
  api_key: {
    label: "API key",
    fields: [
      { key: "name", label: "Header or query parameter", placeholder: "X-Api-Key" },
      { key: "value", label: "Key", secret: true },
      { key: "in", label: "Sent in", options: ["header", "query"] },
      ALLOWED_HOSTS,
    ],
  },
  headers: {
    label: "Headers",
    fields: [{ key: "headers", label: "Headers, one Name: value a line", secret: true, lines: true }, ALLOWED_HOSTS],
  },
  oauth2_client_credentials: {
    label: "OAuth2 client credentials",
    fields: [
      { key: "token_url", label: "Token URL", placeholder: "https://auth.example.com/oauth/token" },
      { key: "client_id", label: "Client id" },
      { key: "client_secret", label: "Client secret", secret: true },
      { key: "scope", label: "Scope", optional: true },
      { key: "audience", label: "Audience", optional: true },
      { key: "client_auth", label: "Client authentication", options: ["basic", "body"] },
      ALLOWED_HOSTS,
    ],
  },
  ai_provider: {
    label: "AI provider key",
    fields: [
      { key: "provider", label: "Provider", options: ["openai", "anthropic"] },
      { key: "api_key", label: "API key", secret: true },
    ],
  },
};

export const CREDENTIAL_TYPES = Object.keys(CREDENTIAL_FORMS);

/** `Name: value` lines as a header map, or why not. */
export function parseHeaderLines(text: string): Record<string, string> | string {
  const headers: Record<string, string> = {};
  for (const line of text.split("\n").map((l) => l.trim())) {
    if (!line) continue;
    const colon = line.indexOf(":");
    if (colon <= 0) return `"${line.slice(0, 40)}" is not Name: value`;
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return Object.keys(headers).length > 0 ? headers : "Give at least one header";
}

/**
 * The `data` of a credential from the typed values: every field of the type, or (a rotation) only
 * its secret ones. Empty optional fields are left out; the API checks the rest.
 */
export function credentialData(
  type: string,
  values: Record<string, string>,
  only: "all" | "secret" = "all",
): { ok: true; data: Record<string, unknown> } | { ok: false; error: string } {
  const form = CREDENTIAL_FORMS[type];
  if (!form) return { ok: false, error: `Unknown type ${type}` };
  const data: Record<string, unknown> = {};
  for (const field of form.fields) {
    if (only === "secret" && !field.secret) continue;
    const text = (values[field.key] ?? "").trim();
    if (!text) {
      if (field.optional) continue;
      return { ok: false, error: `${field.label} is required` };
    }
    if (field.lines) {
      const headers = parseHeaderLines(values[field.key] ?? "");
      if (typeof headers === "string") return { ok: false, error: headers };
      data[field.key] = headers;
    } else if (field.list) {
      data[field.key] = text
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean);
    } else data[field.key] = text;
  }
  return { ok: true, data };
}

/** The fields a credential shows (never secrets), as one line. */
export function describeFields(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(", ") : String(value)}`)
    .join(" · ");
}
