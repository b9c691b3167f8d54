// The configuration file of a real Temporal server (every service in one process) on PostgreSQL
// with mutual TLS on its frontend, as scripts/infra/temporal-cluster.ts runs it. Written as JSON,
// which the server's YAML loader reads as it is. docker-compose.yml runs the same server with the
// same settings (test/cluster-compose.test.ts holds them together).
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { ClusterCertificates } from "./temporal-tls.js";

/** What compose and the cluster harness both use (checked by test/cluster-compose.test.ts). */
export const CLUSTER_DEFAULTS = {
  /** The frontend's gRPC port, the one clients reach. */
  frontendPort: 7233,
  /** The server's SQL plugin for PostgreSQL 12 and later. */
  sqlPlugin: "postgres12",
  database: "temporal",
  visibilityDatabase: "temporal_visibility",
  /** Fixed for the life of a cluster's database: changing it later needs a new database. */
  numHistoryShards: 4,
  namespace: "default",
  /** Closed runs' histories stay this long (the namespace's retention). */
  retentionDays: 7,
} as const;

/**
 * What a flow's priority and its workspace's fair share need of the server (docs/engine.md,
 * "Flow control"). Server 1.32 orders tasks by priority key out of the box (its priority matcher,
 * `matching.useNewMatcher`, is on by default); fairness keys are stored but ignored unless
 * `matching.enableFairness` is on. Turning it on over an existing backlog loses no task.
 */
export const TASK_QUEUE_FAIRNESS_CONFIG = {
  "matching.useNewMatcher": true,
  "matching.enableFairness": true,
} as const;

/**
 * The dev server's tuning (scripts/infra/temporal.ts), so that benches compare the servers and not
 * their settings, and search attributes registered a moment ago are seen at once.
 */
export const CLUSTER_DYNAMIC_CONFIG: Record<string, unknown> = {
  "history.transferProcessorMaxPollRPS": 1000,
  "history.timerProcessorMaxPollRPS": 1000,
  "history.visibilityProcessorMaxPollRPS": 1000,
  "system.forceSearchAttributesCacheRefreshOnRead": true,
  ...TASK_QUEUE_FAIRNESS_CONFIG,
};

export interface ClusterPorts {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
  /** The server's Prometheus metrics (`/metrics`). */
  metrics: number;
}

export interface ClusterServerConfig {
  dir: string;
  ports: ClusterPorts;
  postgres: { host: string; port: number; user: string; password: string };
  databases: { temporal: string; visibility: string };
  certificates: ClusterCertificates;
  logLevel?: "debug" | "info" | "warn" | "error";
}

function sqlStore(config: ClusterServerConfig, databaseName: string, maxConns: number) {
  const { host, port, user, password } = config.postgres;
  return {
    sql: {
      pluginName: CLUSTER_DEFAULTS.sqlPlugin,
      databaseName,
      connectAddr: `${host}:${port}`,
      connectProtocol: "tcp",
      user,
      password,
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: "1h",
    },
  };
}

const service = (grpcPort: number, membershipPort: number, extra: object = {}) => ({
  rpc: { grpcPort, membershipPort, bindOnLocalHost: true, ...extra },
});

/** The frontend asks every client for a certificate of the cluster's CA; so does its own system worker. */
function tlsSection({ certificates }: ClusterServerConfig) {
  const client = { serverName: certificates.serverName, rootCaFiles: [certificates.caFile] };
  return {
    frontend: {
      server: {
        certFile: certificates.serverCertFile,
        keyFile: certificates.serverKeyFile,
        requireClientAuth: true,
        clientCaFiles: [certificates.caFile],
      },
      client,
    },
    systemWorker: { certFile: certificates.clientCertFile, keyFile: certificates.clientKeyFile, client },
  };
}

/** The server's configuration as an object (the file's content). */
export function clusterServerConfig(config: ClusterServerConfig) {
  const { ports } = config;
  return {
    log: { stdout: true, level: config.logLevel ?? "warn", format: "json" },
    persistence: {
      defaultStore: "postgres-default",
      visibilityStore: "postgres-visibility",
      numHistoryShards: CLUSTER_DEFAULTS.numHistoryShards,
      datastores: {
        "postgres-default": sqlStore(config, config.databases.temporal, 20),
        "postgres-visibility": sqlStore(config, config.databases.visibility, 4),
      },
    },
    global: {
      membership: { maxJoinDuration: "30s", broadcastAddress: "127.0.0.1" },
      tls: tlsSection(config),
      metrics: {
        prometheus: { framework: "tally", timerType: "histogram", listenAddress: `127.0.0.1:${ports.metrics}` },
      },
    },
    services: {
      frontend: service(ports.frontend, ports.frontendMembership, { httpPort: ports.frontendHttp }),
      history: service(ports.history, ports.historyMembership),
      matching: service(ports.matching, ports.matchingMembership),
      worker: service(ports.worker, ports.workerMembership),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: "active",
      currentClusterName: "active",
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: "frontend",
          rpcAddress: `127.0.0.1:${ports.frontend}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: "noop" },
    dynamicConfigClient: { filepath: path.join(config.dir, "dynamic-config.yaml"), pollInterval: "10s" },
  };
}

/** Writes the server's config and dynamic config files into `config.dir`; returns the config file. */
export function writeClusterServerConfig(config: ClusterServerConfig): string {
  const file = path.join(config.dir, "temporal-server.yaml");
  // It holds the database password: readable by its owner only.
  writeFileSync(file, `${JSON.stringify(clusterServerConfig(config), null, 2)}\n`, { mode: 0o600 });
  const dynamic = Object.fromEntries(Object.entries(CLUSTER_DYNAMIC_CONFIG).map(([key, value]) => [key, [{ value }]]));
  writeFileSync(path.join(config.dir, "dynamic-config.yaml"), `${JSON.stringify(dynamic, null, 2)}\n`);
  return file;
}
