// npm start: the whole service on one machine. Embedded PostgreSQL and Temporal dev server
// (when DATABASE_URL / TEMPORAL_ADDRESS are not set), migrations, then the API and the worker.
// Ctrl-C or SIGTERM stops everything in reverse order.
import { spawn, type ChildProcess } from "node:child_process";
import { Connection } from "@temporalio/client";
import proto from "@temporalio/proto";
import { ConfigError, loadDotEnv, parseConfig, startConfigSchema } from "../lib/config.js";
import { EMBEDDED_DATABASE, removeServiceFile, writeServiceFile } from "../lib/infra/local-service.js";
import { dataDir, projectRoot } from "../lib/infra/paths.js";
import { startEmbeddedPostgres } from "../lib/infra/postgres.js";
import { applyMigrations, runPrismaCli } from "../lib/infra/prisma-cli.js";
import { isPortInUse, stopChild, waitFor } from "../lib/infra/process.js";
import { locateTemporalCli, startTemporalDevServer } from "../lib/infra/temporal.js";
import { SEARCH_ATTRIBUTES } from "../worker/contracts/run-flow.js";
import { buildDashboardWhenStale } from "./web-build.js";

const startedAt = Date.now();
const elapsed = () => `${((Date.now() - startedAt) / 1000).toFixed(1)}s`;
const say = (line: string) => process.stdout.write(`[svc ${elapsed()}] ${line}\n`);
const stops: Array<{ name: string; stop: () => Promise<void> }> = [];
let shuttingDown = false;

async function shutdown(exitCode: number): Promise<never> {
  if (!shuttingDown) {
    shuttingDown = true;
    const anything = stops.length > 0;
    if (anything) say("stopping...");
    removeServiceFile();
    // API and worker first (together), then Temporal, then the database.
    const processes = stops.filter((s) => s.name === "api" || s.name === "worker");
    await Promise.allSettled(processes.map((s) => s.stop()));
    for (const { name, stop } of stops.filter((s) => !processes.includes(s)).reverse()) {
      await stop().catch((error: Error) => say(`${name} did not stop cleanly: ${error.message}`));
    }
    if (anything) say("stopped");
  }
  process.exit(exitCode);
}

function fail(message: string): Promise<never> {
  process.stderr.write(`[svc] ${message}\n`);
  return shutdown(1);
}

process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));

function startNodeProcess(name: string, entry: string, env: NodeJS.ProcessEnv): ChildProcess {
  // Own process group: a terminal's Ctrl-C reaches us, and we stop the children in order.
  const child = spawn(process.execPath, ["--import", "tsx", entry], {
    cwd: projectRoot,
    env,
    stdio: "inherit",
    detached: true,
  });
  child.once("exit", (code, signal) => {
    if (!shuttingDown) void fail(`${name} exited unexpectedly (${signal ?? `code ${code}`})`);
  });
  stops.push({ name, stop: () => stopChild(child, 20_000) });
  return child;
}

/** Ready means the worker polls the task queue, not only that its process exists. */
async function waitForWorker(address: string, namespace: string, taskQueue: string) {
  const connection = await Connection.connect({ address });
  try {
    await waitFor(
      "the worker to poll its task queue",
      async () => {
        const { pollers } = await connection.workflowService.describeTaskQueue({
          namespace,
          taskQueue: { name: taskQueue },
          taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        });
        return pollers.length > 0;
      },
      { timeoutMs: 120_000, intervalMs: 250, abort: () => (shuttingDown ? "stopped" : undefined) },
    );
  } finally {
    await connection.close();
  }
}

async function main() {
  loadDotEnv();
  const env: NodeJS.ProcessEnv = { ...process.env };

  // Validate everything before starting anything; DATABASE_URL may still come from the embedded cluster.
  const config = parseConfig({ ...env, DATABASE_URL: env.DATABASE_URL || "postgresql://embedded/pending" });
  const startConfig = parseConfig(env, startConfigSchema);

  const apiHost = config.HOST === "0.0.0.0" ? "127.0.0.1" : config.HOST;
  if (await isPortInUse(config.PORT, apiHost)) throw new Error(`PORT ${config.PORT} is already in use on ${apiHost}`);

  // The three start-up tasks are independent: run them side by side.
  const database = async () => {
    if (!env.DATABASE_URL) {
      say(`starting embedded PostgreSQL (data in ${dataDir("postgres")})`);
      const postgres = await startEmbeddedPostgres({
        dir: dataDir("postgres"),
        database: EMBEDDED_DATABASE,
        port: startConfig.EMBEDDED_POSTGRES_PORT,
      });
      stops.push({ name: "postgres", stop: postgres.stop });
      env.DATABASE_URL = postgres.url;
    }
    await applyMigrations(env.DATABASE_URL);
    say("database ready, migrations applied");
  };
  let temporalUiUrl = config.TEMPORAL_UI_URL;
  const temporal = async () => {
    if (env.TEMPORAL_ADDRESS) return;
    const cli = await locateTemporalCli(env, say);
    say(`starting Temporal dev server (history in ${dataDir("temporal")})`);
    const devServer = await startTemporalDevServer({
      cli,
      dbFile: dataDir("temporal", "temporal.db"),
      port: startConfig.TEMPORAL_DEV_PORT,
      uiPort: startConfig.TEMPORAL_DEV_UI_PORT,
      namespace: config.TEMPORAL_NAMESPACE,
      searchAttributes: Object.fromEntries(Object.values(SEARCH_ATTRIBUTES).map((name) => [name, "Keyword" as const])),
    });
    stops.push({ name: "temporal", stop: devServer.stop });
    env.TEMPORAL_ADDRESS = devServer.address;
    temporalUiUrl ??= devServer.uiUrl;
    if (temporalUiUrl) env.TEMPORAL_UI_URL = temporalUiUrl;
    say("Temporal dev server ready");
  };
  const results = await Promise.allSettled([database(), temporal(), runPrismaCli(["generate"])]);
  const failure = results.find((result) => result.status === "rejected");
  if (failure) throw (failure as PromiseRejectedResult).reason;
  if (!env.DATABASE_URL || !env.TEMPORAL_ADDRESS) throw new Error("start-up did not provide the database and Temporal");

  await buildDashboardWhenStale(say);
  startNodeProcess("worker", "worker/main.ts", env);
  // The API runs a worker too, so the runs it starts begin at once in its process (README: "Fast path").
  startNodeProcess("api", "api/server.ts", { API_WORKER: "true", ...env });

  const apiUrl = `http://${apiHost}:${config.PORT}`;
  await waitFor("the API to become ready", async () => (await fetch(`${apiUrl}/readyz`)).ok, {
    timeoutMs: 120_000,
    intervalMs: 250,
    abort: () => (shuttingDown ? "stopped" : undefined),
  });
  say("API ready; waiting for the worker");
  await waitForWorker(env.TEMPORAL_ADDRESS, config.TEMPORAL_NAMESPACE, config.TEMPORAL_TASK_QUEUE);
  writeServiceFile({
    pid: process.pid,
    apiUrl,
    databaseUrl: env.DATABASE_URL,
    temporalAddress: env.TEMPORAL_ADDRESS,
    temporalUiUrl,
  });

  say(`ready in ${elapsed()}`);
  say(`API:         ${apiUrl}`);
  if (temporalUiUrl) say(`Temporal UI: ${temporalUiUrl}`);
  say("press Ctrl-C to stop");
}

main().catch((error: unknown) => fail(error instanceof ConfigError ? error.message : (error as Error).message));
