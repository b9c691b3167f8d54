import { describe, expect, it } from "vitest";
import { loginDelayMs, loginSource } from "./login-throttle.js";

describe("loginSource", () => {
  it("is the IPv4 address, IPv4-mapped IPv6 as IPv4, and IPv6 as its /64", () => {
    expect(loginSource("198.51.100.7")).toBe("198.51.100.7");
    expect(loginSource("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(loginSource("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    // One subscriber's /64 is one source however many addresses it uses; the next /64 is another.
    expect(loginSource("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe(loginSource("2001:db8:1:2::9"));
    expect(loginSource("2001:db8:1:3::1")).not.toBe(loginSource("2001:db8:1:2::1"));
    expect(loginSource("unknown")).toBe("unknown");
  });
});

describe("loginDelayMs", () => {
  it("is free for LOGIN_FREE_FAILURES failures, then 1 s doubling up to LOGIN_MAX_DELAY", () => {
    const config = { LOGIN_FREE_FAILURES: 5, LOGIN_MAX_DELAY: 15 * 60_000 };
    const delays = Array.from({ length: 18 }, (_, i) => loginDelayMs(i + 1, config) / 1000);
    expect(delays).toEqual([0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900]);
    expect(loginDelayMs(10_000, config)).toBe(15 * 60_000);
  });
});
