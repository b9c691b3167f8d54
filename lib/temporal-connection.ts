// The one way every process and script connects to Temporal (the API, the worker, the in-process
// worker, the svc CLI, npm start, tests and benches): address, TLS, mTLS and API key from the
// configuration (lib/temporal-credentials.ts reads and checks the files).
import net from "node:net";
import tls from "node:tls";
import { Connection, type ConnectionOptions, type TLSConfig } from "@temporalio/client";
import type { NativeConnection, NativeConnectionOptions, Worker } from "@temporalio/worker";
import type { Logger } from "./logger.js";
import { renewableClientTls } from "./temporal-client-tls.js";
import {
  readTemporalCredentials,
  temporalTlsEnabled,
  watchTemporalCredentials,
  type TemporalConnectionConfig,
} from "./temporal-credentials.js";

export type { TemporalConnectionConfig } from "./temporal-credentials.js";

export interface TemporalConnectionOptions {
  address: string;
  /** The SDK's TLS settings; false for a plain connection (even with an API key). */
  tls: TLSConfig | false;
  apiKey?: string;
  metadata?: Record<string, string>;
}

type ReloadLog = Pick<Logger, "info" | "warn">;

/**
 * The options both SDK connections take. With an API key, requests also name the namespace
 * (`temporal-namespace`), which Temporal Cloud's regional endpoints route by.
 */
export function temporalConnectionOptions(config: TemporalConnectionConfig): TemporalConnectionOptions {
  const { tls: tlsConfig, apiKey } = readTemporalCredentials(config);
  if (!apiKey) return { address: config.TEMPORAL_ADDRESS, tls: tlsConfig };
  const metadata = config.TEMPORAL_NAMESPACE ? { "temporal-namespace": config.TEMPORAL_NAMESPACE } : undefined;
  return { address: config.TEMPORAL_ADDRESS, tls: tlsConfig, apiKey, ...(metadata ? { metadata } : {}) };
}

/** A client connection whose credential files are followed until it is closed. */
class FollowingConnection extends Connection {
  stopFollowing: () => void = () => undefined;

  override async close(): Promise<void> {
    this.stopFollowing();
    await super.close();
  }
}

/**
 * A client connection's options, and what keeps it current: its API key follows
 * TEMPORAL_API_KEY_FILE (`setApiKey`); with TLS files and no API key, its certificates follow
 * theirs (lib/temporal-client-tls.ts: the next handshake uses them). With an API key beside TLS
 * files the SDK takes the TLS once (it allows no API key beside gRPC credentials): a renewal is
 * then logged for the next start.
 */
function renewableClient(config: TemporalConnectionConfig, extra: ConnectionOptions, log?: ReloadLog) {
  const { metadata, ...options } = temporalConnectionOptions(config);
  const merged = { ...extra, metadata: { ...metadata, ...extra.metadata } };
  const renewableTls =
    options.tls && !options.apiKey && (config.TEMPORAL_TLS_CA || config.TEMPORAL_TLS_CERT)
      ? renewableClientTls(options.tls)
      : undefined;
  const connectionOptions: ConnectionOptions = renewableTls
    ? {
        address: options.address,
        credentials: renewableTls.credentials,
        ...merged,
        channelArgs: { ...renewableTls.channelArgs, ...extra.channelArgs },
      }
    : { ...options, ...merged };
  // The check lives as long as the connection (FollowingConnection stops it when closed); its
  // timer never holds the process open.
  const follow = (connection: Connection) => {
    let tlsFiles = JSON.stringify(options.tls);
    const stop = watchTemporalCredentials(
      config,
      (credentials) => {
        if (credentials.apiKey) connection.setApiKey(credentials.apiKey);
        const renewed = JSON.stringify(credentials.tls);
        if (renewed === tlsFiles) return;
        tlsFiles = renewed;
        if (renewableTls && credentials.tls) renewableTls.renew(credentials.tls);
        else log?.warn("Temporal TLS files changed: this process's client connection uses them from its next start");
      },
      (error) => log?.warn(`Temporal credentials not reloaded: ${error.message}`),
    );
    if (connection instanceof FollowingConnection) connection.stopFollowing = stop;
  };
  return { connectionOptions, follow };
}

/** A connection for `Client`, connected now (throws when Temporal does not answer). */
export async function connectTemporalClient(
  config: TemporalConnectionConfig,
  extra: ConnectionOptions = {},
  log?: ReloadLog,
): Promise<Connection> {
  const { connectionOptions, follow } = renewableClient(config, extra, log);
  const connection = await FollowingConnection.connect(connectionOptions);
  follow(connection);
  return connection;
}

/** A connection for `Client` that connects at its first call (a process that starts before Temporal). */
export function lazyTemporalClient(
  config: TemporalConnectionConfig,
  extra: ConnectionOptions = {},
  log?: ReloadLog,
): Connection {
  const { connectionOptions, follow } = renewableClient(config, extra, log);
  const connection = FollowingConnection.lazy(connectionOptions);
  follow(connection);
  return connection;
}

/** A connection for a `Worker` (and the clients of eager starts), connected now. */
export async function connectTemporalWorker(
  config: TemporalConnectionConfig,
  extra: NativeConnectionOptions = {},
): Promise<NativeConnection> {
  // Loaded here: the worker's native module is no cost to processes that only start workflows.
  const { NativeConnection } = await import("@temporalio/worker");
  const { metadata, ...options } = temporalConnectionOptions(config);
  return NativeConnection.connect({ ...options, ...extra, metadata: { ...metadata, ...extra.metadata } });
}

/**
 * Reconnects `worker` when its TLS files or API key file change (Worker.connection takes a new
 * connection without a restart), then closes the old connection; `onRenewed` hears of the new one
 * first (clients built on the old one). Returns the way to stop watching.
 */
export function renewWorkerConnection(
  config: TemporalConnectionConfig,
  worker: Worker,
  { log, onRenewed }: { log: ReloadLog; onRenewed?: (connection: NativeConnection) => void },
): () => void {
  const renew = async () => {
    try {
      const fresh = await connectTemporalWorker(config);
      const previous = worker.connection;
      worker.connection = fresh;
      onRenewed?.(fresh);
      await previous?.close();
      log.info("Temporal credentials changed: the worker reconnected with them");
    } catch (error) {
      log.warn(
        `Temporal credentials changed, but the worker could not reconnect with them: ${(error as Error).message}`,
      );
    }
  };
  return watchTemporalCredentials(
    config,
    () => void renew(),
    (error) => log.warn(`Temporal credentials not reloaded: ${error.message}`),
  );
}

const HTTP2_PREFACE = Buffer.concat([
  Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
  // An empty SETTINGS frame: a gRPC server answers with its own.
  Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]),
]);

function splitAddress(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(":");
  return { host: address.slice(0, at).replace(/^\[|\]$/g, ""), port: Number(address.slice(at + 1)) };
}

/** Connects over TCP, then runs `handshake` on the socket; undefined when TCP itself fails. */
function overTcp(
  address: string,
  timeoutMs: number,
  handshake: (socket: net.Socket, settle: (reason: string | undefined) => void) => void,
): Promise<string | undefined> {
  const { host, port } = splitAddress(address);
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => settle(undefined), timeoutMs);
    function settle(reason: string | undefined) {
      clearTimeout(timer);
      socket.destroy();
      resolve(reason);
    }
    socket.once("error", () => settle(undefined));
    socket.once("connect", () => {
      socket.removeAllListeners("error");
      handshake(socket, settle);
    });
  });
}

/** OpenSSL's reason alone ("wrong version number"), not its error stack and source file. */
function tlsErrorReason(error: Error & { reason?: string; code?: string }): string {
  if (error.code === "ERR_SSL_WRONG_VERSION_NUMBER") return "the server does not speak TLS (wrong version number)";
  return error.reason ?? error.message.split("\n")[0]!.trim();
}

/** A TLS handshake as the connection makes it, then an HTTP/2 exchange (a rejected client certificate shows only then). */
async function tlsHandshakeFailure(config: TemporalConnectionConfig, timeoutMs: number): Promise<string | undefined> {
  let tlsConfig: TLSConfig | false;
  try {
    tlsConfig = readTemporalCredentials(config).tls;
  } catch (error) {
    // A file gone or broken since the start: that is the reason.
    return (error as Error).message;
  }
  const { host } = splitAddress(config.TEMPORAL_ADDRESS);
  const serverName = (tlsConfig && tlsConfig.serverNameOverride) || host;
  return overTcp(config.TEMPORAL_ADDRESS, timeoutMs, (socket, settle) => {
    const secure = tls.connect({
      socket,
      servername: net.isIP(serverName) ? undefined : serverName,
      ALPNProtocols: ["h2"],
      ...(tlsConfig && tlsConfig.serverRootCACertificate ? { ca: Buffer.from(tlsConfig.serverRootCACertificate) } : {}),
      ...(tlsConfig && tlsConfig.clientCertPair
        ? { cert: Buffer.from(tlsConfig.clientCertPair.crt), key: Buffer.from(tlsConfig.clientCertPair.key) }
        : {}),
      checkServerIdentity: (_name, certificate) => tls.checkServerIdentity(serverName, certificate),
    });
    const failed = (reason: string) =>
      settle(`TLS handshake with ${config.TEMPORAL_ADDRESS} failed: ${reason} (TEMPORAL_TLS_* settings)`);
    secure.once("error", (error) => failed(tlsErrorReason(error)));
    // An alert (a refused client certificate) arrives as an error just after the close.
    secure.once("close", () =>
      setImmediate(() => failed("the server closed the connection (a refused client certificate?)")),
    );
    secure.once("secureConnect", () => secure.write(HTTP2_PREFACE));
    secure.once("data", () => {
      secure.removeAllListeners("close");
      settle(undefined);
    });
  });
}

/** Whether a server that a plain connection cannot use answers a TLS handshake. */
function plainClientOfTlsServer(config: TemporalConnectionConfig, timeoutMs: number): Promise<string | undefined> {
  return overTcp(config.TEMPORAL_ADDRESS, timeoutMs, (socket, settle) => {
    const secure = tls.connect({ socket, rejectUnauthorized: false, ALPNProtocols: ["h2"] });
    secure.once("error", () => settle(undefined));
    secure.once("secureConnect", () =>
      settle(
        `Temporal at ${config.TEMPORAL_ADDRESS} speaks TLS: set TEMPORAL_TLS=true (and TEMPORAL_TLS_CA if its CA is private)`,
      ),
    );
  });
}

/**
 * Why Temporal cannot be used, when the reason is TLS: a handshake that fails (an unknown CA, a
 * name the certificate lacks, a client certificate the server refuses, a server without TLS), or
 * a TLS server reached without TLS. Undefined when TLS is not the problem (or cannot be told).
 */
export async function diagnoseTemporalTls(
  config: TemporalConnectionConfig,
  timeoutMs = 2000,
): Promise<string | undefined> {
  return temporalTlsEnabled(config)
    ? tlsHandshakeFailure(config, timeoutMs)
    : plainClientOfTlsServer(config, timeoutMs);
}
