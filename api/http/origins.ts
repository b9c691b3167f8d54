import type { Config } from "../../lib/config.js";

export type OriginConfig = Pick<Config, "DASHBOARD_ORIGIN" | "DEVELOPER_PORTAL_ORIGIN" | "PARENT_DOMAIN"> &
  Partial<Pick<Config, "HOST" | "PORT">>;

/** The names one loopback service answers to in a browser: a page at either means the same service. */
const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];
const isLoopbackHost = (hostname: string) => LOOPBACK_HOSTS.includes(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);

/** Every spelling of a loopback http origin (localhost, 127.0.0.1, [::1]); other origins as they are. */
function spellings(origin: string): string[] {
  const url = new URL(origin);
  if (url.protocol !== "http:" || !isLoopbackHost(url.hostname)) return [origin];
  return [origin, ...LOOPBACK_HOSTS.map((host) => `http://${host}${url.port ? `:${url.port}` : ""}`)];
}

/** Parses an Origin header; undefined unless it is a canonical http(s) origin (so not "null"). */
function parseOrigin(origin: string): URL | undefined {
  if (!URL.canParse(origin)) return undefined;
  const url = new URL(origin);
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  return url.origin === origin ? url : undefined;
}

/**
 * The request comes from a page of the API's own origin: same host and port as the Host header,
 * where the loopback spellings of one port are one host.
 */
function isSameOrigin(origin: string, host: string | undefined): boolean {
  const url = parseOrigin(origin);
  if (!url || !host || !URL.canParse(`http://${host}`)) return false;
  const target = new URL(`${url.protocol}//${host.toLowerCase()}`);
  if (url.host === target.host) return true;
  return url.port === target.port && isLoopbackHost(url.hostname) && isLoopbackHost(target.hostname);
}

/**
 * The browser origins allowed to call the API with cookies: exactly the dashboard and developer
 * portal origins, and https origins (default port) whose host is a subdomain of the parent domain.
 * A loopback origin is allowed under each of its spellings (localhost, 127.0.0.1, [::1]), and so
 * is the service's own origin when it listens on loopback (HOST, PORT): a person opening
 * http://localhost:3000 or http://127.0.0.1:3000 means the same service.
 * Hosts are compared label by label after URL parsing, never by substring or pattern, so
 * `evil-example.com` and `example.com.evil.com` are not subdomains of `example.com`.
 */
export function createOriginPolicy(config: OriginConfig) {
  const own =
    config.PORT && config.HOST && (isLoopbackHost(config.HOST) || config.HOST === "0.0.0.0" || config.HOST === "::")
      ? `http://127.0.0.1:${config.PORT}`
      : undefined;
  const exact = new Set(
    [config.DASHBOARD_ORIGIN, config.DEVELOPER_PORTAL_ORIGIN, own].filter((o): o is string => !!o).flatMap(spellings),
  );
  const parentLabels = config.PARENT_DOMAIN?.split(".");

  function isSubdomainOfParent(url: URL): boolean {
    if (!parentLabels || url.protocol !== "https:" || url.port !== "") return false;
    const labels = url.hostname.split(".");
    if (labels.length <= parentLabels.length || labels.some((label) => label === "")) return false;
    const tail = labels.slice(labels.length - parentLabels.length);
    return tail.every((label, i) => label === parentLabels[i]);
  }

  return {
    isAllowed(origin: string): boolean {
      const url = parseOrigin(origin);
      if (!url) return false;
      return exact.has(url.origin) || isSubdomainOfParent(url);
    },
    isSameOrigin,
  };
}

export type OriginPolicy = ReturnType<typeof createOriginPolicy>;

/**
 * Exactly these origins (a loopback one under each of its spellings), e.g. the Temporal Web UI
 * calling the codec endpoint; none when none is given.
 */
export function createExactOriginPolicy(origins: ReadonlyArray<string | undefined>): OriginPolicy {
  const exact = new Set(origins.filter((o): o is string => !!o).flatMap(spellings));
  return {
    isAllowed(origin: string): boolean {
      const url = parseOrigin(origin);
      return url !== undefined && exact.has(url.origin);
    },
    isSameOrigin,
  };
}
