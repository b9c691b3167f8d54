// The production topology for the cluster test: the real Temporal server over mTLS
// (scripts/infra/temporal-cluster.ts) on the test run's PostgreSQL server, and two API and two
// worker processes of the service connected to it, each on its own ports, each killed and started
// again on its own.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, waitFor } from "../../scripts/infra/process.js";
import { startTemporalCluster, type RunningTemporalCluster } from "../../scripts/infra/temporal-cluster.js";
import { locateTemporalServer } from "../../scripts/infra/temporal-server.js";
import { dropDatabase } from "../../scripts/infra/postgres.js";
import { cleanEnv, spawnEntry, type Spawned } from "./processes.js";

type Log = (line: string) => void;

/**
 * The Temporal server built (or found built) and started on the PostgreSQL server of `databaseUrl`
 * (its user creates databases), in databases of its own named after `label`; `close` stops it and
 * drops them.
 */
export async function startClusterTemporal(databaseUrl: string, label: string, log: Log = () => {}) {
  const built = Date.now();
  const binaries = await locateTemporalServer(process.env, log);
  log(`Temporal server ${binaries.version} ready to run after ${Date.now() - built} ms`);
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-cluster-"));
  chmodSync(dir, 0o700);
  const suffix = `${label}_${Date.now().toString(36)}`;
  const databases = { temporal: `temporal_${suffix}`, visibility: `temporal_visibility_${suffix}` };
  const admin = new URL(databaseUrl);
  admin.pathname = "/postgres";
  const started = Date.now();
  const temporal = await startTemporalCluster({ binaries, dir, postgresUrl: databaseUrl, databases, log });
  log(`Temporal server on PostgreSQL with mTLS up at ${temporal.address} in ${Date.now() - started} ms`);
  return {
    ...temporal,
    async close() {
      await temporal.stop();
      for (const database of Object.values(databases)) await dropDatabase(admin.toString(), database);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ServiceProcess {
  name: string;
  /** The API's base URL (APIs only). */
  url?: string;
  current(): Spawned | undefined;
  start(): Promise<Spawned>;
  /** SIGKILL, and waits for the exit. */
  kill(): Promise<void>;
}

/** One API or worker: spawned again on the same port and settings after a kill. */
function serviceProcess(kind: "api" | "worker", name: string, env: NodeJS.ProcessEnv): ServiceProcess {
  let current: Spawned | undefined;
  const entry = kind === "api" ? "api/server.ts" : "worker/main.ts";
  return {
    name,
    url: kind === "api" ? `http://127.0.0.1:${env.PORT}` : undefined,
    current: () => current,
    async start() {
      const spawned = spawnEntry(entry, [], env);
      current = spawned;
      if (kind === "worker") await spawned.waitForOutput(/worker started/, 120_000);
      else {
        await waitFor(`${name} to be ready`, async () => (await fetch(`http://127.0.0.1:${env.PORT}/readyz`)).ok, {
          timeoutMs: 120_000,
          intervalMs: 250,
          abort: () => (spawned.child.exitCode !== null ? `exited:\n${spawned.output()}` : undefined),
        });
      }
      return spawned;
    },
    async kill() {
      const spawned = current;
      current = undefined;
      if (!spawned || spawned.child.exitCode !== null || spawned.child.signalCode !== null) return;
      spawned.child.kill("SIGKILL");
      await spawned.exited;
    },
  };
}

/**
 * Two APIs and two workers on `temporal` (its address and mTLS files) and `databaseUrl`, on a task
 * queue of their own; `extraEnv` adds settings (model providers, egress). All four start at once.
 */
export async function startServiceReplicas(
  temporal: Pick<RunningTemporalCluster, "clientEnv">,
  settings: { databaseUrl: string; taskQueue: string; encryptionKey: string; extraEnv?: Record<string, string> },
) {
  const base = cleanEnv({
    ...temporal.clientEnv,
    DATABASE_URL: settings.databaseUrl,
    TEMPORAL_TASK_QUEUE: settings.taskQueue,
    SVC_ENCRYPTION_KEY: settings.encryptionKey,
    // "worker started" is how a worker is known to be up.
    LOG_LEVEL: "info",
    // Other test files' webhook deliveries must not land on these workers.
    WEBHOOK_DISPATCHER: "false",
    ...settings.extraEnv,
  });
  const apis = [
    serviceProcess("api", "api-1", { ...base, PORT: String(await freePort()) }),
    serviceProcess("api", "api-2", { ...base, PORT: String(await freePort()) }),
  ];
  const workers = [serviceProcess("worker", "worker-1", base), serviceProcess("worker", "worker-2", base)];
  const all = [...apis, ...workers];
  await Promise.all(all.map((process) => process.start()));
  return {
    apis,
    workers,
    /** Kills whatever still runs (cleanup). */
    async stopAll() {
      await Promise.all(all.map((process) => process.kill()));
    },
    /** The output of every process so far, to explain a failure. */
    outputs: () => all.map((process) => `--- ${process.name}\n${process.current()?.output() ?? "(not running)"}`),
  };
}
export type ServiceReplicas = Awaited<ReturnType<typeof startServiceReplicas>>;
