// Which network addresses outbound calls may reach: public unicast only, unless the operator's
// EGRESS_ALLOWLIST names the host, the address or a network containing it.
import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

const CLOUD_METADATA = ["169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254"].map((a) =>
  ipaddr.parse(a).toNormalizedString(),
);

const RULE_NAMES: Record<string, string> = {
  loopback: "loopback address",
  private: "private address (RFC 1918)",
  carrierGradeNat: "carrier-grade NAT address (RFC 6598)",
  uniqueLocal: "unique local address (RFC 4193)",
  linkLocal: "link-local address",
  multicast: "multicast address",
  unspecified: "unspecified address",
  broadcast: "broadcast address",
  reserved: "reserved address",
};

/** Parses an address in any spelling Node or a URL may hand us; IPv4-mapped IPv6 becomes IPv4. */
export function parseAddress(text: string): Address | undefined {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (!ipaddr.isValid(bare)) return undefined;
  const address = ipaddr.parse(bare);
  if (address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (address as ipaddr.IPv6).toIPv4Address();
  }
  return address;
}

/**
 * The rule an address breaks, or undefined when it is a public unicast address. Every range
 * ipaddr.js knows besides unicast is refused: the transition forms (NAT64, 6to4, Teredo) can
 * carry a private IPv4 address inside.
 */
export function refusedRange(address: Address): string | undefined {
  if (CLOUD_METADATA.includes(address.toNormalizedString())) return "cloud metadata address";
  const range = address.range();
  if (range === "unicast") return undefined;
  return RULE_NAMES[range] ?? `reserved address (${range})`;
}

export interface Allowlist {
  /** True when the host name itself is allowed (its addresses are then not checked). */
  allowsHost(hostname: string): boolean;
  allowsAddress(address: Address): boolean;
  readonly empty: boolean;
}

/** EGRESS_ALLOWLIST: comma-separated host names (`*.example.com` for subdomains), IPs or CIDRs. */
export function parseAllowlist(text: string | undefined): Allowlist {
  const hosts = new Set<string>();
  const suffixes: string[] = [];
  const networks: Array<[Address, number]> = [];
  for (const raw of (text ?? "").split(",")) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry.includes("/")) {
      const [network, bits] = ipaddr.parseCIDR(entry);
      networks.push([network, bits]);
      continue;
    }
    const address = parseAddress(entry);
    if (address) {
      networks.push([address, address.kind() === "ipv4" ? 32 : 128]);
    } else if (entry.startsWith("*.")) {
      suffixes.push(entry.slice(1));
    } else {
      hosts.add(entry.replace(/\.$/, ""));
    }
  }
  return {
    empty: hosts.size === 0 && suffixes.length === 0 && networks.length === 0,
    allowsHost(hostname) {
      const name = hostname.toLowerCase().replace(/\.$/, "");
      return hosts.has(name) || suffixes.some((suffix) => name.endsWith(suffix));
    },
    allowsAddress(address) {
      return networks.some(([network, bits]) => address.kind() === network.kind() && address.match(network, bits));
    },
  };
}

/** Throws on a malformed allow-list (used to validate the configuration at start). */
export function checkAllowlist(text: string): void {
  for (const raw of text.split(",")) {
    const entry = raw.trim();
    if (!entry) continue;
    if (entry.includes("/")) {
      ipaddr.parseCIDR(entry);
    } else if (
      !parseAddress(entry) &&
      !/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(entry)
    ) {
      throw new Error(`"${entry}" is neither a host name, an IP address nor a CIDR`);
    }
  }
}
