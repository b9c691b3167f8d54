// npm start: the whole service on one machine. Embedded PostgreSQL and Temporal dev server
// (when DATABASE_URL / TEMPORAL_ADDRESS are not set), migrations, then the API and the worker(s),
// all supervised: once the service is up, any of them that exits is restarted
// (scripts/supervisor.ts) while the others keep serving. Ctrl-C, SIGTERM (to this process or
// to npm) or SIGHUP (the terminal closed) stops everything in reverse order. The data
// directory's service file is its lock and names every child, so that after a killed npm start
// the next one stops what it left running.
import type { z } from "zod";
import { encryptionKeyFile, localEncryptionKey } from "./infra/encryption-key.js";
import {
  ConfigError,
  credentialKeysConfigSchema,
  loadDotEnv,
  parseConfig,
  startConfigSchema,
  type Config,
} from "../lib/config.js";
import { portRefusal, type PortSetting } from "../lib/port-refusal.js";
import {
  claimServiceFile,
  EMBEDDED_DATABASE,
  recordServiceAddresses,
  recordServiceChild,
  releaseServiceFile,
} from "./infra/local-service.js";
import { dataDir } from "./infra/paths.js";
import { prepareEmbeddedPostgres } from "./infra/postgres.js";
import { applyMigrations, runPrismaCli } from "./infra/prisma-cli.js";
import { whenLauncherGone } from "./infra/launcher-watch.js";
import { recordChild } from "./infra/process-identity.js";
import { freePort, isPortInUse, waitFor } from "./infra/process.js";
import {
  locateTemporalCli,
  prepareTemporalDevServer,
  serviceSearchAttributes,
  waitForPollers,
} from "./infra/temporal.js";
import { launchService } from "./service-launch.js";
import type { SupervisedProcess } from "./supervisor.js";
import { buildDashboardWhenStale } from "./web-build.js";

const launch = launchService({
  label: "svc",
  onSpawn: (name, child, stopSignal) => recordServiceChild(recordChild(name, child, stopSignal)),
});
const { say, elapsed, stopped } = launch;
/** The proxy of the Temporal UI, in this process, when npm start runs the dev server. */
let temporalUiProxy: { close(): Promise<void> } | undefined;
launch.afterStop(() => temporalUiProxy?.close());
// Last: the lock is held until nothing of ours runs any more.
launch.afterStop(releaseServiceFile);

// npm 11 passes SIGTERM to the shell it runs this script in, which dies of it without passing it
// on: a launcher gone (that shell, or npm) stops everything as SIGTERM would.
whenLauncherGone((what) => {
  say(`${what} is gone: stopping`);
  void launch.shutdown(0);
});
// With the launcher gone, so may be the terminal: a failed write must not end the stop half-way.
process.stdout.on("error", () => undefined);
process.stderr.on("error", () => undefined);

/** Where to reach a server that listens on `host` (all interfaces are reached on loopback). */
const reachable = (host: string) => (host === "0.0.0.0" ? "127.0.0.1" : host);

/** A port found taken before it is used: the same line a process that cannot listen writes. */
const busy = (setting: PortSetting, port: number, host: string) => new Error(portRefusal(setting, host, port));

/**
 * The operator metrics ports of the API and of each worker. A port set in the environment is
 * used as it is, and a busy one stops the start naming its setting; a default that is busy (a
 * second instance on the machine) is replaced by a free port. Workers after the first get free
 * ports of their own.
 */
async function metricsPorts(env: NodeJS.ProcessEnv, config: Config, workers: number) {
  const host = reachable(config.METRICS_HOST);
  const notes: string[] = [];
  const choose = async (setting: "API_METRICS_PORT" | "WORKER_METRICS_PORT" | "TEMPORAL_METRICS_PORT", copy = 0) => {
    const configured = config[setting];
    if (configured === 0) return 0;
    if (copy > 0) return freePort();
    if (!(await isPortInUse(configured, host))) return configured;
    if (env[setting]) throw busy(setting, configured, host);
    const port = await freePort();
    notes.push(`${setting} ${configured} is in use on ${host}: using ${port} instead`);
    return port;
  };
  const api = await choose("API_METRICS_PORT");
  const perWorker = [];
  for (let i = 0; i < workers; i++) {
    perWorker.push({ worker: await choose("WORKER_METRICS_PORT", i), sdk: await choose("TEMPORAL_METRICS_PORT", i) });
  }
  return { api, workers: perWorker, notes };
}

/** What the start runs with: the settings checked, the ports it will use found free. */
interface StartPlan {
  config: Config;
  startConfig: z.infer<typeof startConfigSchema>;
  apiUrl: string;
  metrics: Awaited<ReturnType<typeof metricsPorts>>;
}

/**
 * Validates everything before starting anything (DATABASE_URL may still come from the embedded
 * cluster), claims the data directory, checks the ports and sets the credentials' key in `env`.
 */
async function planStart(env: NodeJS.ProcessEnv): Promise<StartPlan> {
  const config = parseConfig({ ...env, DATABASE_URL: env.DATABASE_URL || "postgresql://embedded/pending" });
  const startConfig = parseConfig(env, startConfigSchema);

  // The data directory is ours before any port is checked: a killed npm start's children go first.
  await claimServiceFile(say);

  const apiHost = reachable(config.HOST);
  const apiUrl = `http://${apiHost}:${config.PORT}`;
  // The API starts last: its port is checked first. The dev servers' ports are checked by their
  // starters (a cluster of ours left running is stopped, and its port kept).
  if (await isPortInUse(config.PORT, apiHost)) throw busy("PORT", config.PORT, apiHost);
  const metrics = await metricsPorts(env, config, startConfig.WORKERS);
  metrics.notes.forEach(say);
  useEncryptionKey(env);
  return { config, startConfig, apiUrl, metrics };
}

/** The key that seals credentials, in `env`: the API and the worker get the same one. */
function useEncryptionKey(env: NodeJS.ProcessEnv): void {
  const encryptionKey = localEncryptionKey(env, { create: true })!;
  if (encryptionKey.source === "created") say(`created the credentials' encryption key in ${encryptionKeyFile()}`);
  env.SVC_ENCRYPTION_KEY = encryptionKey.value;
  try {
    parseConfig(env, credentialKeysConfigSchema);
  } catch (error) {
    if (encryptionKey.source === "environment") throw error;
    throw new ConfigError(`${(error as Error).message} (read from ${encryptionKeyFile()})`);
  }
}

/** The database: embedded PostgreSQL unless DATABASE_URL is set (its URL then goes in `env`), migrated. */
async function prepareDatabase(env: NodeJS.ProcessEnv, { startConfig }: StartPlan): Promise<void> {
  if (!env.DATABASE_URL) {
    say(`starting embedded PostgreSQL (data in ${dataDir("postgres")})`);
    const postgres = await prepareEmbeddedPostgres({
      dir: dataDir("postgres"),
      database: EMBEDDED_DATABASE,
      port: startConfig.EMBEDDED_POSTGRES_PORT,
      say,
    });
    // SIGINT is PostgreSQL's fast shutdown (SIGTERM would wait for every client to leave).
    launch.superviseChild("postgres", postgres.spawn, {
      tier: "database",
      stopSignal: "SIGINT",
      explain: postgres.logTail,
    });
    await postgres.ready(stopped);
    env.DATABASE_URL = postgres.url;
    recordServiceAddresses({ databaseUrl: postgres.url });
  }
  await applyMigrations(env.DATABASE_URL);
  say("database ready, migrations applied");
}

/** The Temporal UI to show, and whether it decodes payloads through the API (the dev server's does). */
interface TemporalUi {
  url: string | undefined;
  decodes: boolean;
}

/** Temporal: the dev server unless TEMPORAL_ADDRESS is set (its address and UI then go in `env`). */
async function prepareTemporal(
  env: NodeJS.ProcessEnv,
  { config, startConfig, apiUrl }: StartPlan,
): Promise<TemporalUi> {
  const ui: TemporalUi = { url: config.TEMPORAL_UI_URL, decodes: false };
  if (env.TEMPORAL_ADDRESS) return ui;
  const cli = await locateTemporalCli(env, say);
  say(`starting Temporal dev server (history in ${dataDir("temporal")})`);
  const devServer = await prepareTemporalDevServer({
    cli,
    dbFile: dataDir("temporal", "temporal.db"),
    port: startConfig.TEMPORAL_DEV_PORT,
    uiPort: startConfig.TEMPORAL_DEV_UI_PORT,
    namespace: config.TEMPORAL_NAMESPACE,
    searchAttributes: serviceSearchAttributes,
    // The UI decodes payloads through the API, with the dashboard's session (README: "Data at rest").
    uiCodecEndpoint: `${apiUrl}/api/temporal-codec`,
  });
  temporalUiProxy = { close: devServer.closeUiProxy };
  ui.decodes = devServer.uiUrl !== undefined;
  launch.superviseChild("temporal", devServer.spawn, { tier: "temporal", explain: devServer.outputTail });
  await devServer.ready(stopped);
  env.TEMPORAL_ADDRESS = devServer.address;
  ui.url ??= devServer.uiUrl;
  if (ui.url) env.TEMPORAL_UI_URL = ui.url;
  recordServiceAddresses({ temporalAddress: devServer.address, temporalUiUrl: ui.url });
  say("Temporal dev server ready");
  return ui;
}

/**
 * The worker(s), then the API, which runs a worker too so the runs it starts begin at once in its
 * process (README: "Fast path").
 */
function startServiceProcesses(env: NodeJS.ProcessEnv, { startConfig, metrics }: StartPlan): void {
  metrics.workers.forEach((ports, i) =>
    launch.startNodeProcess(startConfig.WORKERS > 1 ? `worker-${i + 1}` : "worker", "worker/main.ts", {
      ...env,
      WORKER_METRICS_PORT: String(ports.worker),
      TEMPORAL_METRICS_PORT: String(ports.sdk),
    }),
  );
  launch.startNodeProcess("api", "api/server.ts", {
    API_WORKER: "true",
    ...env,
    API_METRICS_PORT: String(metrics.api),
  });
}

/** Ready means the API answers /readyz and a worker polls the task queue, not only that their processes exist. */
async function waitUntilServing({ config, apiUrl }: StartPlan, temporalAddress: string): Promise<void> {
  await waitFor("the API to become ready", async () => (await fetch(`${apiUrl}/readyz`)).ok, {
    timeoutMs: 120_000,
    intervalMs: 250,
    abort: stopped,
  });
  say("API ready; waiting for the worker");
  await waitForPollers({ ...config, TEMPORAL_ADDRESS: temporalAddress }, config.TEMPORAL_TASK_QUEUE, {
    namespace: config.TEMPORAL_NAMESPACE,
    timeoutMs: 120_000,
    abort: stopped,
  });
}

/** The lines a person at the terminal reads once the service is up: where everything is. */
function announceReady({ config, apiUrl, metrics }: StartPlan, ui: TemporalUi, all: SupervisedProcess[]): void {
  say(`ready in ${elapsed()}`);
  say(`API:         ${apiUrl}`);
  if (ui.url) {
    say(`Temporal UI: ${ui.url}${ui.decodes ? ` (run data decoded once logged in at ${apiUrl})` : ""}`);
  }
  const metricsUrl = (port: number) => (port ? `http://${reachable(config.METRICS_HOST)}:${port}/metrics` : "off");
  say(`Metrics:     API ${metricsUrl(metrics.api)}`);
  metrics.workers.forEach((ports, i) =>
    say(
      `             worker${metrics.workers.length > 1 ? ` ${i + 1}` : ""} ${metricsUrl(ports.worker)}, SDK ${metricsUrl(ports.sdk)}`,
    ),
  );
  say(`Processes:   ${all.map((managed) => `${managed.name} (pid ${managed.pid()})`).join(", ")}`);
  say("press Ctrl-C to stop");
}

async function main() {
  loadDotEnv();
  const env: NodeJS.ProcessEnv = { ...process.env };
  const plan = await planStart(env);

  // The three start-up tasks are independent: run them side by side.
  const [database, temporal, generated] = await Promise.allSettled([
    prepareDatabase(env, plan),
    prepareTemporal(env, plan),
    runPrismaCli(["generate"]),
  ]);
  for (const result of [database, temporal, generated]) if (result.status === "rejected") throw result.reason;
  if (!env.DATABASE_URL || !env.TEMPORAL_ADDRESS) throw new Error("start-up did not provide the database and Temporal");
  const ui = (temporal as PromiseFulfilledResult<TemporalUi>).value;

  await buildDashboardWhenStale(say);
  startServiceProcesses(env, plan);
  await waitUntilServing(plan, env.TEMPORAL_ADDRESS);
  recordServiceAddresses({ apiUrl: plan.apiUrl, databaseUrl: env.DATABASE_URL, temporalAddress: env.TEMPORAL_ADDRESS });

  // From now on a process that exits is restarted rather than stopping the service.
  const all = launch.processes();
  for (const managed of all) managed.settle();
  announceReady(plan, ui, all);
}

main().catch((error: unknown) => launch.fail(error instanceof ConfigError ? error.message : (error as Error).message));
