import { describe, expect, it } from "vitest";
import { hookTriggerConfig, httpTriggerNode, webhookTriggerNode } from "./http-trigger.node.js";

describe("http_trigger and webhook triggers", () => {
  it("default to POST, JSON, async answers without streaming, no verification and Idempotency-Key dedupe for 24h", () => {
    expect(hookTriggerConfig.parse({})).toEqual({
      methods: ["POST"],
      body_type: "json",
      mode: "async",
      sync_timeout_ms: 10_000,
      stream: false,
      stream_timeout_ms: 120_000,
      response: "run",
      verification: { type: "none" },
      dedupe: { header: "Idempotency-Key", window: "24h" },
    });
    expect(httpTriggerNode.config).toBe(hookTriggerConfig);
    expect(webhookTriggerNode.config).toBe(hookTriggerConfig);
  });

  it("fills in the HMAC verification's defaults", () => {
    const config = hookTriggerConfig.parse({ verification: { type: "hmac", secret: "0123456789abcdef" } });
    expect(config.verification).toEqual({
      type: "hmac",
      header: "X-Signature",
      secret: "0123456789abcdef",
      encoding: "hex",
      prefix: "sha256=",
      tolerance_seconds: 300,
    });
  });

  it.each([
    ["an unknown method", { methods: ["TRACE"] }],
    ["no method", { methods: [] }],
    ["a sync wait over 30 s", { sync_timeout_ms: 60_000 }],
    ["a short secret", { verification: { type: "shared_secret", secret: "short" } }],
    ["a bad header name", { verification: { type: "shared_secret", header: "X Secret", secret: "0123456789abcdef" } }],
    ["a dedupe window under 1 s", { dedupe: { window: "500ms" } }],
    ["a dedupe window that is no duration", { dedupe: { window: "forever" } }],
    ["a redirect host that is a URL", { redirect_hosts: ["https://shop.example/"] }],
  ])("refuses %s", (_label, config) => {
    expect(hookTriggerConfig.safeParse(config).success).toBe(false);
  });
});
