// Which destinations the egress guard lets through: http(s) URLs without credentials in them,
// whose host is allowed by name or whose every address lies outside the refused ranges.
import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupAddress } from "node:dns";
import { isIP } from "node:net";
import { parseAddress, refusedRange, type Allowlist } from "./address-policy.js";
import { EgressRefusedError } from "./egress-errors.js";

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export interface EgressPolicy {
  allowlist: Allowlist;
  /** DNS resolution; tests hand in a stub to play DNS rebinding. */
  resolve: Resolver;
}

export const defaultResolve: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** "loopback address" as "loopback addresses", "private address (RFC 1918)" as "private addresses (RFC 1918)". */
const plural = (rule: string) => rule.replace(/\baddress\b/, "addresses");

/** Why a call to `host` at `address` is refused; undefined when it may go. */
export function addressRefusal(allowlist: Allowlist, host: string, address: string): EgressRefusedError | undefined {
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
}

/** The early check before a request (and each redirect hop): throws EgressRefusedError unless the URL may be called. */
export async function checkDestination({ allowlist, resolve }: EgressPolicy, url: URL): Promise<void> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new EgressRefusedError(`Refused ${url.protocol} URL: only http and https are allowed`, "scheme");
  }
  if (url.username || url.password) {
    throw new EgressRefusedError("Refused a URL with credentials in it: send them in a header", "credentials");
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (allowlist.allowsHost(host)) return;
  if (isIP(host)) {
    const error = addressRefusal(allowlist, host, host);
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
    const error = addressRefusal(allowlist, host, address);
    if (error) throw error;
  }
}
