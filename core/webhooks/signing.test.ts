import { describe, expect, it } from "vitest";
import { deliveryHeaders, generateWebhookSecret, standardSignature, svcSignature } from "./signing.js";
import { verifyStandardSignature, verifySvcSignature } from "./verify-example.js";

const body = JSON.stringify({
  event: "run.completed",
  timestamp: "2026-11-22T10:00:00.000Z",
  workspace_id: "ws_1",
  data: {},
});
const now = new Date("2026-11-22T10:00:05.000Z");

describe("webhook signatures", () => {
  it("makes 32-byte secrets that differ every time", () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), "base64")).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(a);
  });

  it("signs the spec's header as lowercase hex HMAC-SHA256 of the raw body", () => {
    // Known answer: HMAC-SHA256("key", "The quick brown fox jumps over the lazy dog").
    expect(svcSignature("key", "The quick brown fox jumps over the lazy dog")).toBe(
      "sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8",
    );
  });

  it("produces headers both verifiers accept, and detects a tampered body", () => {
    const secret = generateWebhookSecret();
    const headers = deliveryHeaders({ event: "run.completed", deliveryId: "whd_1", body, secrets: [secret], now });
    expect(headers["X-SVC-Event"]).toBe("run.completed");
    expect(headers["webhook-timestamp"]).toBe(String(Math.floor(now.getTime() / 1000)));
    const standard = {
      id: headers["webhook-id"],
      timestamp: headers["webhook-timestamp"],
      signature: headers["webhook-signature"],
    };
    expect(verifySvcSignature(secret, body, headers["X-SVC-Signature"])).toBe(true);
    expect(verifyStandardSignature(secret, body, standard, { now })).toBe(true);

    const tampered = body.replace("run.completed", "run.failed");
    expect(verifySvcSignature(secret, tampered, headers["X-SVC-Signature"])).toBe(false);
    expect(verifyStandardSignature(secret, tampered, standard, { now })).toBe(false);
    expect(verifySvcSignature(generateWebhookSecret(), body, headers["X-SVC-Signature"])).toBe(false);
    // A replay outside the tolerance window, and another id, are refused.
    expect(verifyStandardSignature(secret, body, standard, { now: new Date(now.getTime() + 600_000) })).toBe(false);
    expect(verifyStandardSignature(secret, body, { ...standard, id: "whd_2" }, { now })).toBe(false);
  });

  it("signs with both secrets during a rotation's grace period", () => {
    const [fresh, old] = [generateWebhookSecret(), generateWebhookSecret()];
    const headers = deliveryHeaders({ event: "ping", deliveryId: "whd_9", body, secrets: [fresh, old], now });
    const values = headers["webhook-signature"]!.split(" ");
    expect(values).toEqual([
      standardSignature(fresh, "whd_9", Math.floor(now.getTime() / 1000), body),
      standardSignature(old, "whd_9", Math.floor(now.getTime() / 1000), body),
    ]);
    const standard = { id: "whd_9", timestamp: headers["webhook-timestamp"], signature: headers["webhook-signature"] };
    expect(verifyStandardSignature(old, body, standard, { now })).toBe(true);
    expect(verifyStandardSignature(fresh, body, standard, { now })).toBe(true);
    expect(verifySvcSignature(fresh, body, headers["X-SVC-Signature"])).toBe(true);
    expect(verifySvcSignature(old, body, headers["X-SVC-Signature"])).toBe(false);
  });
});
