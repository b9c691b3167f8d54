import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig, requireEncryptionKeyInProduction, requireMailSettings } from "./config.js";

const base = { DATABASE_URL: "postgresql://svc:secret@127.0.0.1:5432/svc" };

describe("parseConfig", () => {
  it("applies the documented defaults", () => {
    const config = parseConfig(base);
    expect(config).toMatchObject({
      PORT: 3000,
      HOST: "127.0.0.1",
      TEMPORAL_ADDRESS: "127.0.0.1:7233",
      TEMPORAL_NAMESPACE: "default",
      TEMPORAL_TASK_QUEUE: "svc-flows",
      LOG_LEVEL: "info",
      API_WORKER_SLOTS: 200,
    });
    expect(config.DASHBOARD_ORIGIN).toBeUndefined();
  });

  it("names a missing required key", () => {
    expect(() => parseConfig({})).toThrow(new ConfigError("Invalid configuration: DATABASE_URL: is required"));
  });

  it.each([
    ["PORT", "eighty", /PORT: /],
    ["PORT", "70000", /PORT: /],
    ["DATABASE_URL", "mysql://x@y/z", /DATABASE_URL: expected a postgresql:\/\/ connection URL/],
    ["TEMPORAL_ADDRESS", "localhost", /TEMPORAL_ADDRESS: expected host:port/],
    ["DASHBOARD_ORIGIN", "https://app.example.com/path", /DASHBOARD_ORIGIN: expected an origin/],
    ["PARENT_DOMAIN", "https://example.com", /PARENT_DOMAIN: expected a domain name/],
    ["LOG_LEVEL", "loud", /LOG_LEVEL: /],
    ["EGRESS_ALLOWLIST", "10.0.0.0/40", /EGRESS_ALLOWLIST: /],
    ["EGRESS_ALLOWLIST", "api.internal, not a host", /EGRESS_ALLOWLIST: "not a host" is neither/],
    ["EGRESS_MAX_REDIRECTS", "6", /EGRESS_MAX_REDIRECTS: /],
    ["API_WORKER_SLOTS", "1", /API_WORKER_SLOTS: /],
    ["TEMPORAL_UI_URL", "https://ui.example.com/?x=1", /TEMPORAL_UI_URL: expected an http\(s\) URL/],
    [
      "TEMPORAL_CODEC_ORIGINS",
      "https://cloud.temporal.io/ui",
      /TEMPORAL_CODEC_ORIGINS: "https:\/\/cloud.temporal.io\/ui" is not an origin/,
    ],
    ["TEMPORAL_TLS", "maybe", /TEMPORAL_TLS: /],
    ["TEMPORAL_TLS_SERVER_NAME", "two words", /TEMPORAL_TLS_SERVER_NAME: expected a host name/],
    [
      "TEMPORAL_CREDENTIALS_RELOAD_INTERVAL",
      "10ms",
      /TEMPORAL_CREDENTIALS_RELOAD_INTERVAL: must be between 1s and 24h/,
    ],
  ])("refuses %s=%s with a message naming the key", (key, value, message) => {
    const error = (() => {
      try {
        parseConfig({ ...base, [key]: value });
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toMatch(message);
    expect(error!.message).not.toContain("\n");
  });

  it("takes a Temporal UI under a path, and the codec's origins as a list", () => {
    const config = parseConfig({
      ...base,
      TEMPORAL_UI_URL: "https://Ops.Example.com/temporal/",
      TEMPORAL_CODEC_ORIGINS: "https://cloud.temporal.io, https://ops.example.com/",
    });
    expect(config.TEMPORAL_UI_URL).toBe("https://ops.example.com/temporal");
    expect(config.TEMPORAL_CODEC_ORIGINS).toEqual(["https://cloud.temporal.io", "https://ops.example.com"]);
    expect(parseConfig({ ...base, TEMPORAL_UI_URL: "http://127.0.0.1:8233" }).TEMPORAL_UI_URL).toBe(
      "http://127.0.0.1:8233",
    );
  });

  it("normalises origins and the parent domain", () => {
    const config = parseConfig({
      ...base,
      DASHBOARD_ORIGIN: "https://Dash.Example.com/",
      DEVELOPER_PORTAL_ORIGIN: "https://dev.example.com:8443",
      PARENT_DOMAIN: "Example.COM",
    });
    expect(config.DASHBOARD_ORIGIN).toBe("https://dash.example.com");
    expect(config.DEVELOPER_PORTAL_ORIGIN).toBe("https://dev.example.com:8443");
    expect(config.PARENT_DOMAIN).toBe("example.com");
  });

  it("treats empty optional values as unset", () => {
    expect(parseConfig({ ...base, DASHBOARD_ORIGIN: "" }).DASHBOARD_ORIGIN).toBeUndefined();
  });
});

describe("SVC_ENCRYPTION_KEY", () => {
  const key = Buffer.alloc(32, 1).toString("base64");

  it("is parsed once into the key ring's keys, the first one sealing", () => {
    const config = parseConfig({ ...base, SVC_ENCRYPTION_KEY: `k2:${key},k1:${"ab".repeat(32)}` });
    expect(config.SVC_ENCRYPTION_KEY!.map((k) => k.id)).toEqual(["k2", "k1"]);
    expect(config.SVC_ENCRYPTION_KEY![1]!.key).toEqual(Buffer.from("ab".repeat(32), "hex"));
  });

  it("names the key and the problem, never the value", () => {
    expect(() => parseConfig({ ...base, SVC_ENCRYPTION_KEY: `k1:${key.slice(4)}` })).toThrow(
      /^Invalid configuration: SVC_ENCRYPTION_KEY: key "k1": expected 32 bytes/,
    );
    expect(() => parseConfig({ ...base, SVC_ENCRYPTION_KEY: key })).toThrow(/SVC_ENCRYPTION_KEY: entry 1/);
    try {
      parseConfig({ ...base, SVC_ENCRYPTION_KEY: key });
    } catch (error) {
      expect((error as Error).message).not.toContain(key);
    }
  });

  it("is required in production only", () => {
    const production = parseConfig({ ...base, NODE_ENV: "production" });
    expect(() => requireEncryptionKeyInProduction(production)).toThrow(
      new ConfigError(
        `Invalid configuration: SVC_ENCRYPTION_KEY: is required when NODE_ENV=production (it encrypts the workspaces' credentials: README, "Credentials")`,
      ),
    );
    const keyed = parseConfig({ ...base, NODE_ENV: "production", SVC_ENCRYPTION_KEY: `k1:${key}` });
    expect(requireEncryptionKeyInProduction(keyed)).toBe(keyed);
    const development = parseConfig(base);
    expect(requireEncryptionKeyInProduction(development)).toBe(development);
  });
});

describe("mail settings", () => {
  const mail = {
    SMTP_HOST: "smtp.example.com",
    MAIL_FROM: "svc <noreply@example.com>",
    DASHBOARD_ORIGIN: "https://svc.example.com",
  };

  it("are off by default: no server, links handed over, STARTTLS when a server is set", () => {
    const config = requireMailSettings(parseConfig(base));
    expect(config).toMatchObject({ SMTP_TLS: "starttls", MAIL_REQUIRED: false });
    expect(config.SMTP_HOST).toBeUndefined();
    expect(requireMailSettings(parseConfig({ ...base, ...mail })).SMTP_HOST).toBe("smtp.example.com");
  });

  it.each([
    [
      { SMTP_HOST: "smtp.example.com" },
      /MAIL_FROM: is required with SMTP_HOST.*; DASHBOARD_ORIGIN: is required with SMTP_HOST/,
    ],
    [{ MAIL_REQUIRED: "true" }, /SMTP_HOST: is required with MAIL_REQUIRED=true/],
    [{ ...mail, SMTP_USER: "svc" }, /SMTP_USER, SMTP_PASSWORD: set both or neither/],
    [
      { ...mail, SMTP_USER: "svc", SMTP_PASSWORD: "pw", SMTP_TLS: "none" },
      /SMTP_TLS: none would send SMTP_PASSWORD in clear/,
    ],
  ])("refuses %o naming the settings", (settings, message) => {
    expect(() => requireMailSettings(parseConfig({ ...base, ...settings }))).toThrow(ConfigError);
    expect(() => requireMailSettings(parseConfig({ ...base, ...settings }))).toThrow(message);
  });

  it("takes credentials in clear to a relay on loopback only", () => {
    const local = { ...mail, SMTP_HOST: "127.0.0.1", SMTP_USER: "svc", SMTP_PASSWORD: "pw", SMTP_TLS: "none" };
    expect(requireMailSettings(parseConfig({ ...base, ...local })).SMTP_TLS).toBe("none");
  });

  it.each([
    ["SMTP_TLS", "ssl", /SMTP_TLS: /],
    ["SMTP_PORT", "0", /SMTP_PORT: /],
    ["SMTP_HOST", "smtp://mail.example.com", /SMTP_HOST: expected a host name or address/],
    ["MAIL_FROM", "not an address", /MAIL_FROM: expected an address/],
    ["MAIL_FROM", "svc <a@b.c>\r\nBcc: x@y.z", /MAIL_FROM: expected an address/],
  ])("refuses %s=%s", (key, value, message) => {
    expect(() => parseConfig({ ...base, [key]: value })).toThrow(message);
  });
});
