// npm run start:cluster: the production topology on one machine, for a person to try. PostgreSQL
// (embedded, or DATABASE_URL's server), the real Temporal server built from the Go module proxy
// on it with mutual TLS (scripts/infra/temporal-cluster.ts), then two API processes and two worker
// processes connected over mTLS, each on ports of its own and restarted when it exits. Prints
// every part's address; Ctrl-C, SIGTERM or SIGHUP stops the service processes, then Temporal,
// then the embedded PostgreSQL. State (databases, certificates) lives in <SVC_DATA_DIR>/cluster.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { ConfigError, loadDotEnv, parseConfig } from "../lib/config.js";
import { localEncryptionKey } from "./infra/encryption-key.js";
import { dataDir } from "./infra/paths.js";
import { startEmbeddedPostgres } from "./infra/postgres.js";
import { applyMigrations } from "./infra/prisma-cli.js";
import { recordChild, stopRecordedProcess, type RecordedProcess } from "./infra/process-identity.js";
import { freePort, isPortInUse, waitFor } from "./infra/process.js";
import { CLUSTER_DEFAULTS } from "./infra/temporal-cluster-config.js";
import { prepareTemporalCluster, waitForClusterPollers, type TemporalCluster } from "./infra/temporal-cluster.js";
import { locateTemporalServer } from "./infra/temporal-server.js";
import { launchService } from "./service-launch.js";

const launch = launchService({ label: "cluster" });
const { say, stopped } = launch;
launch.afterStop(() => rmSync(serverRecordFile(), { force: true }));

/** A port: `preferred` when free, else any free one (said). */
async function portOr(preferred: number, what: string): Promise<number> {
  if (!(await isPortInUse(preferred))) return preferred;
  const port = await freePort();
  say(`${what}: port ${preferred} is in use, using ${port}`);
  return port;
}

/** The database server: DATABASE_URL's (its user creates Temporal's databases), else an embedded one. */
async function database(env: NodeJS.ProcessEnv): Promise<string> {
  if (env.DATABASE_URL) return env.DATABASE_URL;
  say(`starting embedded PostgreSQL (data in ${dataDir("cluster", "postgres")})`);
  const postgres = await startEmbeddedPostgres({ dir: dataDir("cluster", "postgres"), database: "svc" });
  launch.afterStop(() =>
    postgres.stop().catch((error: Error) => say(`postgres did not stop cleanly: ${error.message}`)),
  );
  return postgres.url;
}

/** Where the running Temporal server is recorded: a start:cluster killed outright leaves it running. */
const serverRecordFile = () => dataDir("cluster", "temporal-server.json");

/** Stops the Temporal server a killed start:cluster left running (only that very process). */
async function stopLeftServer(): Promise<void> {
  if (!existsSync(serverRecordFile())) return;
  const record = JSON.parse(readFileSync(serverRecordFile(), "utf8")) as RecordedProcess;
  if (await stopRecordedProcess(record))
    say(`stopped the Temporal server (pid ${record.pid}) a killed start:cluster left running`);
  rmSync(serverRecordFile(), { force: true });
}

async function startTemporal(databaseUrl: string): Promise<TemporalCluster> {
  await stopLeftServer();
  const binaries = await locateTemporalServer(process.env, say);
  const cluster = await prepareTemporalCluster({
    binaries,
    dir: dataDir("cluster", "temporal"),
    postgresUrl: databaseUrl,
    frontendPort: await portOr(CLUSTER_DEFAULTS.frontendPort, "Temporal frontend"),
    log: say,
  });
  launch.superviseChild(
    "temporal",
    () => {
      const child = cluster.spawn();
      writeFileSync(serverRecordFile(), JSON.stringify(recordChild("temporal", child)));
      return child;
    },
    { tier: "temporal", explain: cluster.outputTail },
  );
  await cluster.ready(stopped);
  say(`Temporal server ${binaries.version} ready at ${cluster.address} (mTLS)`);
  return cluster;
}

/** Two workers and two APIs, each with metrics ports of its own; resolves to the APIs' URLs. */
async function startServices(env: NodeJS.ProcessEnv, cluster: TemporalCluster, firstApiPort: number) {
  const metrics = async () => ({
    API_METRICS_PORT: String(await freePort()),
    WORKER_METRICS_PORT: String(await freePort()),
    TEMPORAL_METRICS_PORT: String(await freePort()),
  });
  const withCluster = { ...env, ...cluster.clientEnv };
  for (const name of ["worker-1", "worker-2"])
    launch.startNodeProcess(name, "worker/main.ts", { ...withCluster, ...(await metrics()) });
  const apiPorts = [await portOr(firstApiPort, "api-1"), await freePort()];
  const urls = apiPorts.map((port) => `http://127.0.0.1:${port}`);
  for (const [i, port] of apiPorts.entries()) {
    launch.startNodeProcess(`api-${i + 1}`, "api/server.ts", {
      ...withCluster,
      ...(await metrics()),
      PORT: String(port),
    });
  }
  for (const url of urls) {
    await waitFor(`the API at ${url}`, async () => (await fetch(`${url}/readyz`)).ok, {
      timeoutMs: 120_000,
      intervalMs: 250,
      abort: stopped,
    });
  }
  return urls;
}

async function main() {
  loadDotEnv();
  const env: NodeJS.ProcessEnv = { ...process.env };
  const config = parseConfig({ ...env, DATABASE_URL: env.DATABASE_URL || "postgresql://embedded/pending" });
  env.SVC_ENCRYPTION_KEY = localEncryptionKey(env, { create: true })!.value;
  // Our processes listen on loopback: the cluster is for this machine.
  env.HOST = "127.0.0.1";

  const databaseUrl = await database(env);
  env.DATABASE_URL = databaseUrl;
  await applyMigrations(databaseUrl);
  say("database ready, migrations applied");
  const cluster = await startTemporal(databaseUrl);
  const apiUrls = await startServices(env, cluster, config.PORT);
  await waitForClusterPollers(cluster, config.TEMPORAL_TASK_QUEUE, { timeoutMs: 120_000, abort: stopped });
  for (const managed of launch.processes()) managed.settle();

  say(`ready in ${launch.elapsed()}`);
  say(`APIs:        ${apiUrls.join("  ")}`);
  say(`Temporal:    ${cluster.address} (mTLS: CA, client certificate and key in ${cluster.certificates.dir})`);
  say(`             metrics ${cluster.metricsUrl}`);
  say(`Database:    ${databaseUrl.replace(/\/\/[^@]*@/, "//")}`);
  say(
    `Processes:   ${launch
      .processes()
      .map((managed) => `${managed.name} (pid ${managed.pid()})`)
      .join(", ")}`,
  );
  say("press Ctrl-C to stop");
}

main().catch((error: unknown) => launch.fail(error instanceof ConfigError ? error.message : (error as Error).message));
