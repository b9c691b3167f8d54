// Host patterns, as a credential's allowed_hosts and a hook's redirect_hosts take them: a host name,
// `*.` and a name (its subdomains) or an IP address, each matched on host and port (none given:
// only the URL scheme's default port; `:port` that port; `:*` any).
import { z } from "zod";

/** A port after a host: a number, or `*` for any. */
const PORT = String.raw`(:([1-9][0-9]{0,4}|\*))?`;
const HOST_NAME = String.raw`(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*`;
const HOST_PATTERN = new RegExp(`^${HOST_NAME}${PORT}$|^\\[[0-9a-f:.]+\\]${PORT}$|^[0-9a-f]*:[0-9a-f:.]*:[0-9a-f:.]*$`);

/**
 * A host a credential may be sent to, or a hook redirect to: a name, `*.` and a name (its
 * subdomains), or an IP address (IPv6 in brackets when it has a port), with `:port` for one port
 * or `:*` for any; without a port, only the URL scheme's default one (443 for https, 80 for http).
 */
export const hostPatternSchema = z
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

/** An entry read: the host as URL spells it, and its port ("" the scheme's default, "*" any). */
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
 * Whether `url` matches one of `patterns` (none: no URL): its host is an entry's (a `*.` entry:
 * its subdomains) and its port that entry's port, any port for `:*`, the scheme's default for an
 * entry without one.
 */
export function urlMatches(url: URL, patterns: readonly string[]): boolean {
  return patterns.map(parseHostPattern).some((entry) => hostMatches(url, entry) && portMatches(url, entry));
}

/** Whether a credential whose allowed_hosts is `allowed` may go to `url`: any URL when there are none. */
export const urlAllowed = (url: URL, allowed: readonly string[] | undefined): boolean =>
  !allowed || allowed.length === 0 || urlMatches(url, allowed);

/** Whether `url`'s host is one of `allowed` on some port: the refusal then names the port. */
export function hostAllowedOnOtherPort(url: URL, allowed: readonly string[]): boolean {
  return allowed.map(parseHostPattern).some((entry) => hostMatches(url, entry) && !portMatches(url, entry));
}
