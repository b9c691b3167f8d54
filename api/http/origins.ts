import type { Config } from "../../lib/config.js";

export type OriginConfig = Pick<Config, "DASHBOARD_ORIGIN" | "DEVELOPER_PORTAL_ORIGIN" | "PARENT_DOMAIN">;

/** Parses an Origin header; undefined unless it is a canonical http(s) origin (so not "null"). */
function parseOrigin(origin: string): URL | undefined {
  if (!URL.canParse(origin)) return undefined;
  const url = new URL(origin);
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  return url.origin === origin ? url : undefined;
}

/**
 * The browser origins allowed to call the API with cookies: exactly the dashboard and developer
 * portal origins, and https origins (default port) whose host is a subdomain of the parent domain.
 * Hosts are compared label by label after URL parsing, never by substring or pattern, so
 * `evil-example.com` and `example.com.evil.com` are not subdomains of `example.com`.
 */
export function createOriginPolicy(config: OriginConfig) {
  const exact = new Set([config.DASHBOARD_ORIGIN, config.DEVELOPER_PORTAL_ORIGIN].filter((o): o is string => !!o));
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
    /** The request comes from a page of the API's own origin (same scheme-less host and port). */
    isSameOrigin(origin: string, host: string | undefined): boolean {
      const url = parseOrigin(origin);
      return !!url && !!host && url.host === host.toLowerCase();
    },
  };
}

export type OriginPolicy = ReturnType<typeof createOriginPolicy>;
