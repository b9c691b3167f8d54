// The one way every process and script connects to Temporal (the API, the worker, the in-process
// worker, the svc CLI, npm start, tests and benches): address, TLS, mTLS and API key from the
// configuration (credentials.ts reads and checks the files).
import { Connection, type ConnectionOptions, type TLSConfig } from "@temporalio/client";
import type { NativeConnection, NativeConnectionOptions, Worker } from "@temporalio/worker";
// The logger is pino's (lib/logger.ts makes it); named from pino, so this room stands below lib/config.ts.
import type { Logger } from "pino";
import { renewableClientTls } from "./client-tls.js";
import { readTemporalCredentials, watchTemporalCredentials, type TemporalConnectionConfig } from "./credentials.js";

export type { TemporalConnectionConfig } from "./credentials.js";

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
 * theirs (client-tls.ts: the next handshake uses them). With an API key beside TLS
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
