import { describe, expect, it } from "vitest";
import { checkAllowlist, parseAddress, parseAllowlist, refusedRange } from "./address-policy.js";

// What the WHATWG URL parser makes of a host, as the guard sees it.
const hostOf = (url: string) => new URL(url).hostname;
const rangeOfUrl = (url: string) => {
  const address = parseAddress(hostOf(url));
  if (!address) throw new Error(`${url} did not parse to an address`);
  return refusedRange(address);
};

describe("address policy", () => {
  it.each([
    ["http://127.0.0.1/", "loopback address"],
    ["http://127.1/", "loopback address"],
    ["http://0x7f.1/", "loopback address"],
    ["http://0x7f000001/", "loopback address"],
    ["http://2130706433/", "loopback address"],
    ["http://017700000001/", "loopback address"],
    ["http://0177.0.0.1/", "loopback address"],
    ["http://127.255.255.254/", "loopback address"],
    ["http://[::1]/", "loopback address"],
    ["http://[0:0:0:0:0:0:0:1]/", "loopback address"],
    ["http://[::ffff:127.0.0.1]/", "loopback address"],
    ["http://[::ffff:7f00:1]/", "loopback address"],
    ["http://10.0.0.1/", "private address (RFC 1918)"],
    ["http://012.0.0.1/", "private address (RFC 1918)"],
    ["http://172.16.5.4/", "private address (RFC 1918)"],
    ["http://192.168.1.1/", "private address (RFC 1918)"],
    ["http://0xc0a80101/", "private address (RFC 1918)"],
    ["http://[::ffff:10.0.0.1]/", "private address (RFC 1918)"],
    ["http://100.64.0.1/", "carrier-grade NAT address (RFC 6598)"],
    ["http://[fc00::1]/", "unique local address (RFC 4193)"],
    ["http://[fd12:3456::1]/", "unique local address (RFC 4193)"],
    ["http://169.254.1.1/", "link-local address"],
    ["http://[fe80::1]/", "link-local address"],
    ["http://169.254.169.254/", "cloud metadata address"],
    ["http://0xa9fea9fe/", "cloud metadata address"],
    ["http://2852039166/", "cloud metadata address"],
    ["http://[::ffff:169.254.169.254]/", "cloud metadata address"],
    ["http://[::ffff:a9fe:a9fe]/", "cloud metadata address"],
    ["http://[fd00:ec2::254]/", "cloud metadata address"],
    ["http://224.0.0.1/", "multicast address"],
    ["http://[ff02::1]/", "multicast address"],
    ["http://0.0.0.0/", "unspecified address"],
    ["http://0/", "unspecified address"],
    ["http://[::]/", "unspecified address"],
    ["http://255.255.255.255/", "broadcast address"],
    ["http://240.0.0.1/", "reserved address"],
    ["http://192.0.2.1/", "reserved address"],
    ["http://[2001:db8::1]/", "reserved address"],
  ])("refuses %s as a %s", (url, rule) => {
    expect(rangeOfUrl(url)).toBe(rule);
  });

  it.each([
    ["http://[::127.0.0.1]/", "loopback address inside an IPv4-compatible IPv6 address (127.0.0.1)"],
    ["http://[::7f00:1]/", "loopback address inside an IPv4-compatible IPv6 address (127.0.0.1)"],
    ["http://[::10.0.0.1]/", "private address (RFC 1918) inside an IPv4-compatible IPv6 address (10.0.0.1)"],
    ["http://[::169.254.169.254]/", "cloud metadata address inside an IPv4-compatible IPv6 address (169.254.169.254)"],
    ["http://[::ffff:0:127.0.0.1]/", "loopback address inside an IPv4-translated IPv6 address (127.0.0.1)"],
    ["http://[64:ff9b::127.0.0.1]/", "loopback address inside a NAT64 address (127.0.0.1)"],
    ["http://[64:ff9b::a9fe:a9fe]/", "cloud metadata address inside a NAT64 address (169.254.169.254)"],
    ["http://[2002:7f00:1::]/", "loopback address inside a 6to4 address (127.0.0.1)"],
    ["http://[2002:c0a8:101::1]/", "private address (RFC 1918) inside a 6to4 address (192.168.1.1)"],
    ["http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "loopback address inside a Teredo address (127.0.0.1)"],
  ])("refuses %s, an IPv6 address carrying an IPv4 address that is refused, naming it", (url, rule) => {
    expect(rangeOfUrl(url)).toBe(rule);
  });

  it.each([
    ["IPv4-compatible", "http://[::8.8.8.8]/"],
    ["NAT64", "http://[64:ff9b::8.8.8.8]/"],
    ["NAT64 of local use", "http://[64:ff9b:1::7f00:1]/"],
    ["6to4", "http://[2002:808:808::1]/"],
    ["Teredo", "http://[2001::1]/"],
  ])("refuses transition addresses whatever they carry (%s of a public address)", (_name, url) => {
    expect(rangeOfUrl(url)).toMatch(/^(reserved|broadcast) address/);
  });

  it("refuses IPv6 addresses outside global unicast (2000::/3) that ipaddr.js calls unicast", () => {
    expect(rangeOfUrl("http://[4000::1]/")).toBe("reserved address (outside IPv6 global unicast, 2000::/3)");
    expect(rangeOfUrl("http://[::1:2:3:4]/")).toBe("reserved address (outside IPv6 global unicast, 2000::/3)");
  });

  it.each(["http://8.8.8.8/", "http://93.184.215.14/", "http://[2606:4700:4700::1111]/", "http://[::ffff:8.8.8.8]/"])(
    "lets the public unicast address %s through",
    (url) => {
      expect(rangeOfUrl(url)).toBeUndefined();
    },
  );

  it("reads allow-lists of host names, wildcards, addresses and networks", () => {
    const list = parseAllowlist(" api.internal, *.corp.example ,127.0.0.1, 10.0.0.0/8, ::1 ,");
    expect(list.empty).toBe(false);
    expect(list.allowsHost("API.internal.")).toBe(true);
    expect(list.allowsHost("svc.corp.example")).toBe(true);
    expect(list.allowsHost("corp.example")).toBe(false);
    expect(list.allowsHost("evil-api.internal")).toBe(false);
    expect(list.allowsAddress(parseAddress("127.0.0.1")!)).toBe(true);
    expect(list.allowsAddress(parseAddress("::ffff:127.0.0.1")!)).toBe(true);
    expect(list.allowsAddress(parseAddress("127.0.0.2")!)).toBe(false);
    expect(list.allowsAddress(parseAddress("10.200.3.4")!)).toBe(true);
    expect(list.allowsAddress(parseAddress("[::1]")!)).toBe(true);
    expect(list.allowsAddress(parseAddress("192.168.0.1")!)).toBe(false);
    expect(parseAllowlist(undefined).empty).toBe(true);
  });

  it("rejects malformed allow-list entries", () => {
    expect(() => checkAllowlist("10.0.0.0/33")).toThrow();
    expect(() => checkAllowlist("not a host")).toThrow(/neither a host name/);
    expect(() => checkAllowlist("example.com, 10.0.0.0/8, ::1")).not.toThrow();
  });
});
