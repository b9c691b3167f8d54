import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { testCertificates } from "../../test/helpers/tls.js";
import { ConfigError } from "../config-error.js";
import { parseConfig } from "../config.js";
import { temporalConnectionOptions } from "./connection.js";
import { readTemporalCredentials, type TemporalConnectionConfig } from "./credentials.js";

const certificates = testCertificates();
afterAll(() => certificates.remove());
const ca = certificates.authority("main");
const client = ca.issue("client");
const other = certificates.authority("other").issue("client");
const address = { TEMPORAL_ADDRESS: "temporal.example.com:7233" };
const pem = (file: string) => readFileSync(file);

/** The configuration as the processes parse it from these variables. */
const configOf = (env: Record<string, string>): TemporalConnectionConfig =>
  parseConfig({ DATABASE_URL: "postgresql://svc@127.0.0.1/svc", ...address, ...env });

/** The one-line error a process stops with. */
function refusal(env: Record<string, string>, now?: Date): string {
  try {
    readTemporalCredentials(configOf(env), now);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain("\n");
    return (error as Error).message;
  }
  throw new Error("no error");
}

describe("the Temporal connection's options", () => {
  it("are a plain connection to the address when nothing secures it", () => {
    expect(temporalConnectionOptions(configOf({}))).toEqual({ address: address.TEMPORAL_ADDRESS, tls: false });
  });

  it("trust the system's CAs with TEMPORAL_TLS alone", () => {
    expect(temporalConnectionOptions(configOf({ TEMPORAL_TLS: "true" })).tls).toEqual({});
  });

  it("trust the CA file, checking the name TEMPORAL_TLS_SERVER_NAME gives", () => {
    const options = temporalConnectionOptions(
      configOf({ TEMPORAL_TLS_CA: ca.cert, TEMPORAL_TLS_SERVER_NAME: "frontend.internal" }),
    );
    expect(options.tls).toEqual({ serverRootCACertificate: pem(ca.cert), serverNameOverride: "frontend.internal" });
    expect(options.apiKey).toBeUndefined();
  });

  it("present the client certificate and key for mTLS", () => {
    const options = temporalConnectionOptions(
      configOf({ TEMPORAL_TLS_CA: ca.cert, TEMPORAL_TLS_CERT: client.cert, TEMPORAL_TLS_KEY: client.key }),
    );
    expect(options.tls).toEqual({
      serverRootCACertificate: pem(ca.cert),
      clientCertPair: { crt: pem(client.cert), key: pem(client.key) },
    });
  });

  it("carry an API key, with TLS and the namespace Temporal Cloud routes by", () => {
    const options = temporalConnectionOptions(
      configOf({ TEMPORAL_API_KEY: "key-1", TEMPORAL_NAMESPACE: "acme.a1b2c" }),
    );
    expect(options).toEqual({
      address: address.TEMPORAL_ADDRESS,
      tls: {},
      apiKey: "key-1",
      metadata: { "temporal-namespace": "acme.a1b2c" },
    });
  });

  it("read the API key from its file, and keep a plain connection when TEMPORAL_TLS=false says so", () => {
    const file = certificates.file("api-key");
    writeFileSync(file, "key-from-file\n");
    const options = temporalConnectionOptions(configOf({ TEMPORAL_API_KEY_FILE: file, TEMPORAL_TLS: "false" }));
    expect(options).toMatchObject({ tls: false, apiKey: "key-from-file" });
  });
});

describe("a wrong Temporal TLS setting stops the start with one line naming it", () => {
  it.each([
    [
      "a missing CA file",
      { TEMPORAL_TLS_CA: "/nonexistent/ca.pem" },
      /^Invalid configuration: TEMPORAL_TLS_CA: cannot read \/nonexistent\/ca\.pem \(no such file\)$/,
    ],
    ["a directory", { TEMPORAL_TLS_CA: "/tmp" }, /TEMPORAL_TLS_CA: cannot read \/tmp \(a directory, not a file\)/],
    ["a key as the CA", { TEMPORAL_TLS_CA: client.key }, /TEMPORAL_TLS_CA: .*client\.key holds no PEM certificate/],
    [
      "a certificate without its key",
      { TEMPORAL_TLS_CERT: client.cert },
      /TEMPORAL_TLS_CERT: is set without TEMPORAL_TLS_KEY/,
    ],
    [
      "a key without its certificate",
      { TEMPORAL_TLS_KEY: client.key },
      /TEMPORAL_TLS_KEY: is set without TEMPORAL_TLS_CERT/,
    ],
    [
      "a certificate as the key",
      { TEMPORAL_TLS_CERT: client.cert, TEMPORAL_TLS_KEY: client.cert },
      /TEMPORAL_TLS_KEY: .*client\.pem is not a PEM private key/,
    ],
    [
      "another certificate's key",
      { TEMPORAL_TLS_CERT: client.cert, TEMPORAL_TLS_KEY: other.key },
      /TEMPORAL_TLS_KEY: .*other-client\.key is not the private key of TEMPORAL_TLS_CERT \(.*main-client\.pem\)/,
    ],
    [
      "TLS files with TEMPORAL_TLS=false",
      { TEMPORAL_TLS: "false", TEMPORAL_TLS_CA: ca.cert },
      /TEMPORAL_TLS: is false, but TEMPORAL_TLS_CA is set/,
    ],
    [
      "two API keys",
      { TEMPORAL_API_KEY: "k", TEMPORAL_API_KEY_FILE: client.key },
      /TEMPORAL_API_KEY_FILE: set either TEMPORAL_API_KEY or TEMPORAL_API_KEY_FILE/,
    ],
    [
      "a missing API key file",
      { TEMPORAL_API_KEY_FILE: "/nonexistent/key" },
      /TEMPORAL_API_KEY_FILE: cannot read \/nonexistent\/key \(no such file\)/,
    ],
  ])("%s", (_case, env, message) => {
    expect(refusal(env)).toMatch(message);
  });

  it("an expired client certificate", () => {
    const later = new Date(Date.now() + 3 * 86_400_000);
    expect(refusal({ TEMPORAL_TLS_CERT: client.cert, TEMPORAL_TLS_KEY: client.key }, later)).toMatch(
      /TEMPORAL_TLS_CERT: .*main-client\.pem expired on \d{4}-/,
    );
  });

  it("an empty API key file", () => {
    const file = certificates.file("empty-key");
    writeFileSync(file, "\n");
    expect(refusal({ TEMPORAL_API_KEY_FILE: file })).toMatch(/TEMPORAL_API_KEY_FILE: .*empty-key is empty/);
  });
});
