// A real Temporal server, as production runs it, on this machine: the server built from the Go
// module proxy (scripts/infra/temporal-server.ts) on PostgreSQL, with its own `temporal` and
// `temporal_visibility` databases made by its schema tool, and mutual TLS on its frontend with
// certificates made here (scripts/infra/temporal-tls.ts). The namespace and the service's search
// attributes are registered through the frontend's API, as an operator would. `npm run
// start:cluster` (scripts/start-cluster.ts) and test/cluster.e2e.test.ts both run it.
import { spawn, type ChildProcess } from "node:child_process";
import { randomInt } from "node:crypto";
import { mkdirSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { Connection, isGrpcServiceError } from "@temporalio/client";
import pg from "pg";
import { msToTs } from "@temporalio/common/lib/time.js";
import { ensureSearchAttributes } from "../../core/engine/search-attributes.js";
import { temporalConnectionOptions, type TemporalConnectionConfig } from "../../lib/temporal/connection.js";
import { ensureDatabase } from "./postgres.js";
import { freePort, run, stopChild, waitFor } from "./process.js";
import { CLUSTER_DEFAULTS, writeClusterServerConfig, type ClusterPorts } from "./temporal-cluster-config.js";
import { hasPollers } from "./temporal.js";
import type { TemporalServerBinaries } from "./temporal-server.js";
import { makeClusterCertificates, type ClusterCertificates } from "./temporal-tls.js";

type Log = (line: string) => void;

export interface TemporalClusterOptions {
  binaries: TemporalServerBinaries;
  /** Holds the config files and the certificates (made again at each prepare). */
  dir: string;
  /** A PostgreSQL URL whose user may create databases; its own database is not used. */
  postgresUrl: string;
  databases?: { temporal: string; visibility: string };
  /** The frontend's gRPC port on 127.0.0.1; a free one when 0 or absent. */
  frontendPort?: number;
  namespace?: string;
  log?: Log;
}

/** The server of a cluster, to start, stop, kill and start again on the same ports and data. */
export interface TemporalCluster {
  /** The frontend's gRPC address (mutual TLS). */
  address: string;
  namespace: string;
  certificates: ClusterCertificates;
  metricsUrl: string;
  /** The settings our API and workers connect with (address, namespace, TLS files). */
  clientEnv: Record<string, string>;
  /** Spawns the server (its own process group); `ready` waits for it. */
  spawn(): ChildProcess;
  /** Resolves once the frontend answers over mTLS, with the namespace and search attributes registered. */
  ready(abort?: () => string | undefined): Promise<void>;
  /** The end of the server's output, to explain an exit. */
  outputTail(): string;
}

/** What our API and worker processes are given to reach the cluster (lib/config.ts settings). */
export function clusterClientEnv(
  address: string,
  namespace: string,
  certificates: Pick<ClusterCertificates, "caFile" | "clientCertFile" | "clientKeyFile" | "serverName">,
): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: address,
    TEMPORAL_NAMESPACE: namespace,
    TEMPORAL_TLS_CA: certificates.caFile,
    TEMPORAL_TLS_CERT: certificates.clientCertFile,
    TEMPORAL_TLS_KEY: certificates.clientKeyFile,
    TEMPORAL_TLS_SERVER_NAME: certificates.serverName,
  };
}

/** The connection settings of the cluster's clients, as our processes read them from their env. */
export function clusterConnectionConfig(clientEnv: Record<string, string>): TemporalConnectionConfig {
  const { TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TLS_CA, TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY } = clientEnv;
  return {
    TEMPORAL_ADDRESS: TEMPORAL_ADDRESS!,
    TEMPORAL_NAMESPACE,
    TEMPORAL_TLS_CA,
    TEMPORAL_TLS_CERT,
    TEMPORAL_TLS_KEY,
    TEMPORAL_TLS_SERVER_NAME: clientEnv.TEMPORAL_TLS_SERVER_NAME,
  };
}

/** A connection to the cluster's frontend with the client certificate (the harness's own calls). */
export function connectToCluster(
  cluster: Pick<TemporalCluster, "clientEnv">,
  connectTimeout = 5000,
): Promise<Connection> {
  // Options from the one module that builds every connection; no credential watch: this one is short-lived.
  const { metadata, ...options } = temporalConnectionOptions(clusterConnectionConfig(cluster.clientEnv));
  return Connection.connect({ ...options, ...(metadata ? { metadata } : {}), connectTimeout });
}

/** Waits until some worker polls `taskQueue` for workflow tasks on the cluster (over mTLS). */
export async function waitForClusterPollers(
  cluster: Pick<TemporalCluster, "clientEnv" | "namespace">,
  taskQueue: string,
  options: { timeoutMs: number; abort?: () => string | undefined },
): Promise<void> {
  const connection = await connectToCluster(cluster);
  try {
    await waitFor(
      `a worker polling ${taskQueue}`,
      () => hasPollers(connection, taskQueue, { namespace: cluster.namespace }),
      { timeoutMs: options.timeoutMs, intervalMs: 250, abort: options.abort },
    );
  } finally {
    await connection.close();
  }
}

/** The env the schema tool reads its connection from (no password in its command line). */
function sqlToolEnv(postgresUrl: string, database: string): NodeJS.ProcessEnv {
  const url = new URL(postgresUrl);
  return {
    ...process.env,
    SQL_PLUGIN: CLUSTER_DEFAULTS.sqlPlugin,
    SQL_HOST: url.hostname,
    SQL_PORT: url.port || "5432",
    SQL_USER: decodeURIComponent(url.username),
    SQL_PASSWORD: decodeURIComponent(url.password),
    SQL_DATABASE: database,
  };
}

/**
 * Makes the database (when missing) and brings its schema to the server's latest: versioning
 * tables (setup-schema -v 0.0), then every versioned step from the schema embedded in the tool
 * (the module's schema/postgresql/v12 folder). Each step is a no-op when already done.
 */
async function setUpSchema(sqlTool: string, postgresUrl: string, database: string, schemaName: string) {
  const env = sqlToolEnv(postgresUrl, database);
  await run(sqlTool, ["create-database"], { env });
  await run(sqlTool, ["setup-schema", "-v", "0.0"], { env });
  await run(sqlTool, ["update-schema", "--schema-name", schemaName], { env, timeoutMs: 300_000 });
}

/** Whether `port` can be listened on at 127.0.0.1 now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * A free port below 32768: the server stores membership ports as a SQL smallint, and the
 * system's ephemeral ports (what freePort gets) lie above it.
 */
async function freeMembershipPort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + randomInt(12_000);
    if (await canListen(port)) return port;
  }
  throw new Error("no free port between 20000 and 32000 on 127.0.0.1 for the Temporal server's membership");
}

async function choosePorts(frontendPort: number | undefined): Promise<ClusterPorts> {
  return {
    frontend: frontendPort || (await freePort()),
    frontendHttp: await freePort(),
    frontendMembership: await freeMembershipPort(),
    history: await freePort(),
    historyMembership: await freeMembershipPort(),
    matching: await freePort(),
    matchingMembership: await freeMembershipPort(),
    worker: await freePort(),
    workerMembership: await freeMembershipPort(),
    metrics: await freePort(),
  };
}

/** Registers the namespace unless it exists; a second registration in between is no fault. */
async function ensureNamespace(connection: Connection, namespace: string): Promise<void> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
    return;
  } catch (error) {
    if (!isGrpcServiceError(error) || error.code !== 5 /* NOT_FOUND */) throw error;
  }
  try {
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs(`${CLUSTER_DEFAULTS.retentionDays} days`),
    });
  } catch (error) {
    if (!isGrpcServiceError(error) || error.code !== 6 /* ALREADY_EXISTS */) throw error;
  }
}

/**
 * Forgets the cluster members an earlier run recorded: no server of this cluster runs while it is
 * prepared, and a new one (on new ports) would try to join the dead ones until it gives up.
 */
async function forgetMembers(postgresUrl: string, database: string): Promise<void> {
  const url = new URL(postgresUrl);
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query("DELETE FROM cluster_membership");
  } finally {
    await client.end();
  }
}

/**
 * Temporal's two databases, made when missing (with our own client: the schema tool's
 * create-database needs a `postgres` database to connect to, which a server of ours always has),
 * then at the server's latest schema.
 */
async function prepareDatabases(
  sqlTool: string,
  postgresUrl: string,
  databases: { temporal: string; visibility: string },
  log: Log,
): Promise<void> {
  const admin = new URL(postgresUrl);
  admin.pathname = "/postgres";
  for (const database of [databases.temporal, databases.visibility]) await ensureDatabase(admin.toString(), database);
  const started = Date.now();
  await setUpSchema(sqlTool, postgresUrl, databases.temporal, "postgresql/v12/temporal");
  await setUpSchema(sqlTool, postgresUrl, databases.visibility, "postgresql/v12/visibility");
  await forgetMembers(postgresUrl, databases.temporal);
  const took = Date.now() - started;
  log(`Temporal's databases ${databases.temporal} and ${databases.visibility} at their latest schema (${took} ms)`);
}

/** Waits for the frontend to answer over mTLS, then registers the namespace and the search attributes. */
async function registerWhenReady(
  cluster: Pick<TemporalCluster, "clientEnv" | "namespace">,
  abort?: () => string | undefined,
): Promise<void> {
  const connection = await waitFor(
    "the Temporal server's frontend (mTLS)",
    async () => {
      const candidate = await connectToCluster(cluster, 2000);
      try {
        await candidate.workflowService.getSystemInfo({});
        return candidate;
      } catch (error) {
        await candidate.close();
        throw error;
      }
    },
    { timeoutMs: 120_000, intervalMs: 500, abort },
  );
  try {
    // The namespace registry is read again every few seconds: retried until it is seen.
    await waitFor(
      `namespace ${cluster.namespace} and the service's search attributes`,
      async () => {
        await ensureNamespace(connection, cluster.namespace);
        await ensureSearchAttributes(connection, cluster.namespace);
        return true;
      },
      { timeoutMs: 60_000, intervalMs: 500, abort },
    );
  } finally {
    await connection.close();
  }
}

/** The server process, its own process group, with the end of its output kept by `keep`. */
function spawnServer(server: string, configFile: string, keep: (chunk: Buffer) => void): ChildProcess {
  const child = spawn(server, ["--config-file", configFile, "--allow-no-auth", "start"], {
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group: a terminal's Ctrl-C reaches our script, which stops it in order.
    detached: true,
  });
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return child;
}

/**
 * Makes the certificates, the databases and the config file, and chooses the ports; spawns
 * nothing yet. The ports stay the same for every spawn, so clients keep their address across a
 * restart.
 */
export async function prepareTemporalCluster(options: TemporalClusterOptions): Promise<TemporalCluster> {
  const namespace = options.namespace ?? CLUSTER_DEFAULTS.namespace;
  const databases = options.databases ?? {
    temporal: CLUSTER_DEFAULTS.database,
    visibility: CLUSTER_DEFAULTS.visibilityDatabase,
  };
  mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  const certificates = await makeClusterCertificates(path.join(options.dir, "tls"));
  await prepareDatabases(options.binaries.sqlTool, options.postgresUrl, databases, options.log ?? (() => {}));

  const ports = await choosePorts(options.frontendPort);
  const url = new URL(options.postgresUrl);
  const configFile = writeClusterServerConfig({
    dir: options.dir,
    ports,
    postgres: {
      host: url.hostname,
      port: Number(url.port || 5432),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    },
    databases,
    certificates,
  });
  const address = `127.0.0.1:${ports.frontend}`;
  let output = "";
  const cluster: TemporalCluster = {
    address,
    namespace,
    certificates,
    metricsUrl: `http://127.0.0.1:${ports.metrics}/metrics`,
    clientEnv: clusterClientEnv(address, namespace, certificates),
    spawn: () =>
      spawnServer(options.binaries.server, configFile, (chunk) => {
        output = (output + chunk.toString()).slice(-8000);
      }),
    ready: (abort) => registerWhenReady(cluster, abort),
    outputTail: () => output.trim().slice(-3000),
  };
  return cluster;
}

/** A cluster's server run by its owner (tests, benches): started, killed and started again. */
export async function startTemporalCluster(options: TemporalClusterOptions) {
  const cluster = await prepareTemporalCluster(options);
  let child: ChildProcess | undefined;
  const start = async () => {
    const current = cluster.spawn();
    child = current;
    await cluster.ready(() =>
      current.exitCode !== null ? `exited with code ${current.exitCode}: ${cluster.outputTail()}` : undefined,
    );
  };
  const stop = async () => {
    const current = child;
    child = undefined;
    if (current) await stopChild(current, 20_000);
  };
  await start().catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return {
    ...cluster,
    process: () => child,
    stop,
    async start() {
      if (!child) await start();
    },
    /** SIGKILL, as the out-of-memory killer would: no shutdown, only what PostgreSQL had committed. */
    async kill() {
      const current = child;
      child = undefined;
      if (!current || current.exitCode !== null || current.signalCode !== null) return;
      const exited = new Promise((resolve) => current.once("exit", resolve));
      process.kill(-current.pid!, "SIGKILL");
      await exited;
    },
  };
}
export type RunningTemporalCluster = Awaited<ReturnType<typeof startTemporalCluster>>;
