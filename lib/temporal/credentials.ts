// What secures the connection to Temporal: TLS (a CA, a client certificate and key for mTLS, the
// server's name) and an API key, read from the files the configuration names. Read when a process
// starts (a wrong or unreadable file stops it with one line naming the setting and the file) and
// again whenever a file changes (renewed certificates, a rotated key).
import { createPrivateKey, X509Certificate, type KeyObject } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import type { TLSConfig } from "@temporalio/client";
import { ConfigError } from "../config-error.js";

/**
 * The settings of a Temporal connection, as lib/config.ts parses them (named here rather than
 * picked from its Config: the config's parse reads them through this module); all but the address
 * may be absent (plain, no key).
 */
export interface TemporalConnectionConfig {
  TEMPORAL_ADDRESS: string;
  TEMPORAL_NAMESPACE?: string;
  TEMPORAL_TLS?: boolean;
  TEMPORAL_TLS_CA?: string;
  TEMPORAL_TLS_CERT?: string;
  TEMPORAL_TLS_KEY?: string;
  TEMPORAL_TLS_SERVER_NAME?: string;
  TEMPORAL_API_KEY?: string;
  TEMPORAL_API_KEY_FILE?: string;
  /** In milliseconds. */
  TEMPORAL_CREDENTIALS_RELOAD_INTERVAL?: number;
}

export interface TemporalCredentials {
  /** The SDK's TLS settings; false for a plain connection. */
  tls: TLSConfig | false;
  apiKey?: string;
}

const FILE_SETTINGS = ["TEMPORAL_TLS_CA", "TEMPORAL_TLS_CERT", "TEMPORAL_TLS_KEY", "TEMPORAL_API_KEY_FILE"] as const;
type FileSetting = (typeof FILE_SETTINGS)[number];

const READ_ERRORS: Record<string, string> = {
  ENOENT: "no such file",
  EACCES: "permission denied",
  EISDIR: "a directory, not a file",
};

const problem = (setting: string, message: string) => new ConfigError(`Invalid configuration: ${setting}: ${message}`);

function readSettingFile(setting: FileSetting, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    throw problem(setting, `cannot read ${path} (${READ_ERRORS[code] ?? (code || (error as Error).message)})`);
  }
}

function readCertificate(setting: "TEMPORAL_TLS_CA" | "TEMPORAL_TLS_CERT", path: string) {
  const pem = readSettingFile(setting, path);
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) throw problem(setting, `${path} holds no PEM certificate`);
  try {
    return { pem, certificate: new X509Certificate(pem) };
  } catch (error) {
    throw problem(setting, `${path} is not a valid PEM certificate (${(error as Error).message})`);
  }
}

function readPrivateKey(path: string): { pem: Buffer; key: KeyObject } {
  const pem = readSettingFile("TEMPORAL_TLS_KEY", path);
  try {
    return { pem, key: createPrivateKey(pem) };
  } catch {
    throw problem("TEMPORAL_TLS_KEY", `${path} is not a PEM private key (encrypted keys are not supported)`);
  }
}

/** The client certificate and its key (mTLS), checked to belong together and to be in date. */
function readClientCertPair(certPath: string, keyPath: string, now: Date): TLSConfig["clientCertPair"] {
  const { pem: crt, certificate } = readCertificate("TEMPORAL_TLS_CERT", certPath);
  const { pem: key, key: privateKey } = readPrivateKey(keyPath);
  if (!certificate.checkPrivateKey(privateKey)) {
    throw problem("TEMPORAL_TLS_KEY", `${keyPath} is not the private key of TEMPORAL_TLS_CERT (${certPath})`);
  }
  if (new Date(certificate.validTo) < now) {
    throw problem("TEMPORAL_TLS_CERT", `${certPath} expired on ${new Date(certificate.validTo).toISOString()}`);
  }
  return { crt, key };
}

function readApiKey(config: TemporalConnectionConfig): string | undefined {
  if (config.TEMPORAL_API_KEY && config.TEMPORAL_API_KEY_FILE) {
    throw problem("TEMPORAL_API_KEY_FILE", "set either TEMPORAL_API_KEY or TEMPORAL_API_KEY_FILE, not both");
  }
  if (!config.TEMPORAL_API_KEY_FILE) return config.TEMPORAL_API_KEY;
  const path = config.TEMPORAL_API_KEY_FILE;
  const apiKey = readSettingFile("TEMPORAL_API_KEY_FILE", path).toString("utf8").trim();
  if (!apiKey) throw problem("TEMPORAL_API_KEY_FILE", `${path} is empty`);
  if (/\s/.test(apiKey)) throw problem("TEMPORAL_API_KEY_FILE", `${path} holds more than one word: the key alone`);
  return apiKey;
}

/** Whether the connection uses TLS: TEMPORAL_TLS, else whether any TLS setting or an API key is set. */
export function temporalTlsEnabled(config: TemporalConnectionConfig): boolean {
  const tlsSetting = config.TEMPORAL_TLS_CA ?? config.TEMPORAL_TLS_CERT ?? config.TEMPORAL_TLS_SERVER_NAME;
  return config.TEMPORAL_TLS ?? Boolean(tlsSetting ?? config.TEMPORAL_API_KEY ?? config.TEMPORAL_API_KEY_FILE);
}

function checkCombinations(config: TemporalConnectionConfig): void {
  if (Boolean(config.TEMPORAL_TLS_CERT) !== Boolean(config.TEMPORAL_TLS_KEY)) {
    const [set, missing] = config.TEMPORAL_TLS_CERT
      ? ["TEMPORAL_TLS_CERT", "TEMPORAL_TLS_KEY"]
      : ["TEMPORAL_TLS_KEY", "TEMPORAL_TLS_CERT"];
    throw problem(set, `is set without ${missing}: the client certificate and its key come together`);
  }
  if (config.TEMPORAL_TLS === false) {
    const tlsSetting = (["TEMPORAL_TLS_CA", "TEMPORAL_TLS_CERT", "TEMPORAL_TLS_SERVER_NAME"] as const).find(
      (key) => config[key],
    );
    if (tlsSetting) throw problem("TEMPORAL_TLS", `is false, but ${tlsSetting} is set`);
  }
}

/**
 * Reads and checks the TLS files and the API key; throws a ConfigError naming the setting and the
 * file when one is missing, unreadable or unusable.
 */
export function readTemporalCredentials(config: TemporalConnectionConfig, now = new Date()): TemporalCredentials {
  checkCombinations(config);
  const apiKey = readApiKey(config);
  if (!temporalTlsEnabled(config)) return { tls: false, apiKey };
  const tls: TLSConfig = {};
  if (config.TEMPORAL_TLS_SERVER_NAME) tls.serverNameOverride = config.TEMPORAL_TLS_SERVER_NAME;
  if (config.TEMPORAL_TLS_CA)
    tls.serverRootCACertificate = readCertificate("TEMPORAL_TLS_CA", config.TEMPORAL_TLS_CA).pem;
  if (config.TEMPORAL_TLS_CERT && config.TEMPORAL_TLS_KEY) {
    tls.clientCertPair = readClientCertPair(config.TEMPORAL_TLS_CERT, config.TEMPORAL_TLS_KEY, now);
  }
  return { tls, apiKey };
}

/** The files the connection reads, by setting. */
export function temporalCredentialFiles(config: TemporalConnectionConfig): string[] {
  return FILE_SETTINGS.map((key) => config[key]).filter((path): path is string => Boolean(path));
}

function fileVersion(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return "unreadable";
  }
}

const DEFAULT_RELOAD_INTERVAL_MS = 60_000;

/**
 * Checks the connection's files every TEMPORAL_CREDENTIALS_RELOAD_INTERVAL; after a change, reads
 * them again and hands the new credentials to `onChange`, or the reason to `onError` (the
 * connection keeps the credentials it has). A no-op without files. Returns the way to stop.
 */
export function watchTemporalCredentials(
  config: TemporalConnectionConfig,
  onChange: (credentials: TemporalCredentials) => void,
  onError: (error: Error) => void,
): () => void {
  const files = temporalCredentialFiles(config);
  if (files.length === 0) return () => undefined;
  const versionOf = () => files.map(fileVersion).join("|");
  let seen = versionOf();
  const timer = setInterval(() => {
    const version = versionOf();
    if (version === seen) return;
    seen = version;
    let credentials: TemporalCredentials;
    try {
      credentials = readTemporalCredentials(config);
    } catch (error) {
      onError(error as Error);
      return;
    }
    onChange(credentials);
  }, config.TEMPORAL_CREDENTIALS_RELOAD_INTERVAL ?? DEFAULT_RELOAD_INTERVAL_MS);
  // The check never keeps a process alive on its own.
  timer.unref();
  return () => clearInterval(timer);
}
