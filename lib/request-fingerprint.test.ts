import { describe, expect, it } from "vitest";
import { requestFingerprint } from "./request-fingerprint.js";

describe("request fingerprints", () => {
  const base = { method: "POST", path: "/api/hooks/hk_a?source=crm", body: { order: { id: "o-1", total: 5 } } };

  it("is the same for the same request, whatever its keys' order or the method's case", () => {
    const fingerprint = requestFingerprint(base);
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(requestFingerprint({ ...base, method: "post", body: { order: { total: 5, id: "o-1" } } })).toBe(fingerprint);
  });

  it("differs for another method, path, query or body", () => {
    const fingerprint = requestFingerprint(base);
    const others = [
      { ...base, method: "PUT" },
      { ...base, path: "/api/hooks/hk_b?source=crm" },
      { ...base, path: "/api/hooks/hk_a?source=erp" },
      { ...base, body: { order: { id: "o-1", total: 6 } } },
      { ...base, body: { order: { id: "o-1", total: 5 }, card: "4242" } },
      { ...base, body: "order=o-1" },
      { ...base, body: null },
    ];
    for (const other of others) expect(requestFingerprint(other), JSON.stringify(other)).not.toBe(fingerprint);
    // The parts cannot run into each other: a path's end is not a body's start.
    expect(requestFingerprint({ method: "POST", path: "/a", body: "b" })).not.toBe(
      requestFingerprint({ method: "POST", path: "/ab", body: "" }),
    );
  });
});
