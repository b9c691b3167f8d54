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

/** IPv6 forms that carry an IPv4 address inside, by ipaddr.js's range name (or ours, "ipv4Compatible"). */
const EMBEDDING_FORMS: Record<string, { name: string; ipv4: (bytes: number[]) => number[] }> = {
  ipv4Mapped: { name: "an IPv4-mapped IPv6 address", ipv4: (bytes) => bytes.slice(12) },
  ipv4Compatible: { name: "an IPv4-compatible IPv6 address", ipv4: (bytes) => bytes.slice(12) },
  rfc6145: { name: "an IPv4-translated IPv6 address", ipv4: (bytes) => bytes.slice(12) },
  rfc6052: { name: "a NAT64 address", ipv4: (bytes) => bytes.slice(12) },
  "6to4": { name: "a 6to4 address", ipv4: (bytes) => bytes.slice(2, 6) },
  // Teredo carries the client's address inverted, in the last 32 bits.
  teredo: { name: "a Teredo address", ipv4: (bytes) => bytes.slice(12).map((byte) => byte ^ 0xff) },
};

/** `::a.b.c.d` (deprecated by RFC 4291): the first 96 bits zero, and neither `::` nor `::1`. */
const isIPv4Compatible = (address: ipaddr.IPv6) =>
  address.parts.slice(0, 6).every((part) => part === 0) && address.parts[6]! + address.parts[7]! > 1;

const WELL_KNOWN_NAT64 = ipaddr.parseCIDR("64:ff9b::/96");

/** The IPv4 address an IPv6 address carries, and the form that carries it; undefined for none. */
export function embeddedIPv4(address: ipaddr.IPv6): { ipv4: ipaddr.IPv4; form: string } | undefined {
  const range = isIPv4Compatible(address) ? "ipv4Compatible" : address.range();
  const form = EMBEDDING_FORMS[range];
  // NAT64's local-use prefixes (64:ff9b:1::/48) place the address otherwise: refused as reserved.
  if (!form || (range === "rfc6052" && !address.match(WELL_KNOWN_NAT64))) return undefined;
  return { ipv4: ipaddr.fromByteArray(form.ipv4(address.toByteArray())) as ipaddr.IPv4, form: form.name };
}

/** Global unicast IPv6 (RFC 4291): every other address ipaddr.js calls unicast is unassigned. */
const GLOBAL_UNICAST = ipaddr.parseCIDR("2000::/3");

/**
 * The rule an address breaks, or undefined when it is a public unicast address. Every range
 * ipaddr.js knows besides unicast is refused. An IPv6 address that carries an IPv4 address
 * (IPv4-compatible `::127.0.0.1`, IPv4-mapped, NAT64, 6to4, Teredo) is refused naming the IPv4
 * address's rule when that address is refused, and as a reserved address when it is public:
 * where a transition form leads is not ours to know. IPv4-mapped alone counts as its IPv4
 * address (it is how a dual-stack socket reaches one).
 */
export function refusedRange(address: Address): string | undefined {
  if (CLOUD_METADATA.includes(address.toNormalizedString())) return "cloud metadata address";
  if (address.kind() === "ipv6") {
    const inside = embeddedIPv4(address as ipaddr.IPv6);
    if (inside) {
      const rule = refusedRange(inside.ipv4);
      if (rule) return `${rule} inside ${inside.form} (${inside.ipv4.toString()})`;
      return inside.form === EMBEDDING_FORMS.ipv4Mapped!.name ? undefined : `reserved address (${inside.form})`;
    }
  }
  const range = address.range();
  if (range === "unicast") {
    return address.kind() === "ipv6" && !address.match(GLOBAL_UNICAST)
      ? "reserved address (outside IPv6 global unicast, 2000::/3)"
      : undefined;
  }
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
