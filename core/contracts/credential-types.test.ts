import { describe, expect, it } from "vitest";
import { credentialDataSchemas } from "./credential-types.js";

describe("allowed_hosts", () => {
  const parsed = (allowed_hosts: string[]) => credentialDataSchemas.bearer.safeParse({ token: "t0k", allowed_hosts });

  it("takes host names, *. names and IP addresses, each with :port or :* or neither", () => {
    const hosts = [
      "api.example.com",
      "API.Example.com:8443",
      "*.example.com",
      "*.example.com:*",
      "127.0.0.1",
      "127.0.0.1:47201",
      "::1",
      "[::1]",
      "[::1]:8080",
      "[2001:db8::1]:*",
    ];
    const result = parsed(hosts);
    expect(result.success, JSON.stringify(result.error?.issues)).toBe(true);
    expect(result.data?.allowed_hosts).toEqual(hosts.map((host) => host.toLowerCase()));
  });

  it("refuses URLs, ports out of range or empty, and what is no IPv6 address", () => {
    for (const host of [
      "https://api.example.com",
      "api.example.com/path",
      "api.example.com:0",
      "api.example.com:65536",
      "api.example.com:",
      "api.example.com:8443:1",
      "api.example.com:http",
      "[::1]:",
      "abc:def:1",
      "[12345::1]:80",
    ]) {
      expect(parsed([host]).success, host).toBe(false);
    }
  });
});
