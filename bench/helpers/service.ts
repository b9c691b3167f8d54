// The service as `npm start` runs it, for a benchmark: the API and the worker as processes of
// their own (the real entry points, CUSTOM_NODES_DIR=bench/nodes for the pass node), a fresh
// database, a Temporal dev server, a logged-in user, and a Temporal client for this process.
// With `costs`, meters of a run's cost: the API's CPU by part and the SQL per run (run-costs.ts).
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { Client } from "@temporalio/client";
import { hasPollers } from "../../scripts/infra/temporal.js";
import { clusterConnectionConfig } from "../../scripts/infra/temporal-cluster.js";
import { createUserWithWorkspace } from "../../core/users/users.service.js";
import { parseKeyRing, type RingKey } from "../../lib/crypto/key-ring.js";
import { createPrismaClient } from "../../lib/db.js";
import { connectTemporalClient } from "../../lib/temporal/connection.js";
import { createDataConverter } from "../../core/engine/data-converter.js";
import { projectRoot } from "../../scripts/infra/paths.js";
import { freePort, stopChild, waitFor } from "../../scripts/infra/process.js";
import { loginApiClient, type ApiClient } from "./api-client.js";
import { runCosts, runCostsDir, type CostsMode } from "./run-costs.js";
import { breakdownProcessOptions } from "./cpu-breakdown.js";
import { benchDatabase } from "./database.js";
import { cpuSeconds, machinePostgresCpuSeconds, postmasterCpuSeconds } from "./process-cpu.js";
import { benchEncryptionKey, benchTemporal, benchUser } from "./fixtures.js";

export { cpuSeconds } from "./process-cpu.js";

/** Adds to `total` the CPU seconds each part used between two readings (`cpu()` of the service). */
export function addCpuUsed(
  total: Record<string, number>,
  before: Record<string, number>,
  after: Record<string, number>,
): void {
  for (const [part, used] of Object.entries(after)) total[part] = (total[part] ?? 0) + used - before[part]!;
}

/** "<total> ms (<part> <ms>, ...)": CPU milliseconds per request (or run), from CPU seconds by part. */
export function cpuPerRequestText(used: Record<string, number>, requests: number): string {
  const ms = (seconds: number) => ((seconds * 1000) / requests).toFixed(1);
  const parts = Object.entries(used);
  const total = parts.reduce((sum, [, seconds]) => sum + seconds, 0);
  return `${ms(total)} ms (${parts.map(([part, seconds]) => `${part} ${ms(seconds)}`).join(", ")})`;
}

/**
 * PostgreSQL's CPU seconds: the benchmark's own server when it started one (other PostgreSQL
 * servers on a shared machine are not counted), else the machine's (BENCH_DATABASE_URL); Temporal's
 * own server apart when it has one (BENCH_TEMPORAL=cluster).
 */
function postgresParts(postmaster: number | undefined, temporalPostgres: number | undefined): Record<string, number> {
  if (postmaster !== undefined) {
    const ours = postmasterCpuSeconds(postmaster);
    return temporalPostgres === undefined
      ? { PostgreSQL: ours }
      : { PostgreSQL: ours, "Temporal's PostgreSQL": temporalPostgres };
  }
  const all = machinePostgresCpuSeconds();
  if (temporalPostgres === undefined) return { PostgreSQL: all };
  return { PostgreSQL: all - temporalPostgres, "Temporal's PostgreSQL": temporalPostgres };
}

/**
 * The flags that make the processes write V8 CPU profiles as they stop: the API's (and its thread
 * ids) for `costs`; the API's and the worker's into BENCH_CPU_PROFILE=<dir> (kept there).
 */
function profilingOptions(costs: CostsMode) {
  const profileDir = process.env.BENCH_CPU_PROFILE;
  const worker = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(profileDir)}`] : [];
  if (costs === "off") return { api: worker, worker, env: {}, dir: undefined, remove: () => {} };
  const scratch = runCostsDir();
  const { nodeFlags, env } = breakdownProcessOptions(scratch.dir, { profiler: costs === "profiled" });
  return { api: nodeFlags, worker, env, ...scratch };
}

/** The environment of the service's processes: as npm start gives it, on the benchmark's servers. */
function serviceEnv(where: {
  databaseUrl: string;
  temporal: { address: string; clientEnv: Record<string, string> };
  port: number;
  taskQueue: string;
  bareTaskQueue: string;
  extra: Record<string, string>;
}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: where.databaseUrl,
    TEMPORAL_ADDRESS: where.temporal.address,
    ...where.temporal.clientEnv,
    TEMPORAL_TASK_QUEUE: where.taskQueue,
    BARE_TASK_QUEUE: where.bareTaskQueue,
    PORT: String(where.port),
    CUSTOM_NODES_DIR: path.join(projectRoot, "bench", "nodes"),
    // As npm start runs it.
    API_WORKER: process.env.API_WORKER ?? "true",
    // Operator metrics are counted as in production; only their listeners stay off.
    API_METRICS_PORT: "0",
    WORKER_METRICS_PORT: "0",
    TEMPORAL_METRICS_PORT: "0",
    SVC_ENCRYPTION_KEY: benchEncryptionKey,
    // BENCH_NODE_OPTIONS: Node and V8 flags to try on the service's processes (--max-semi-space-size=32).
    ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
    ...where.extra,
  };
}

/** The service's child processes (Node entry points run with tsx), their last errors kept for the report. */
function serviceChildren(env: NodeJS.ProcessEnv) {
  const children: ChildProcess[] = [];
  let stderr = "";
  const start = (entry: string, nodeFlags: string[] = []) => {
    const child = spawn(process.execPath, [...nodeFlags, "--import", "tsx", entry], {
      cwd: projectRoot,
      env,
      // Logs at the service's own level go nowhere; errors are kept for the report.
      stdio: ["ignore", "ignore", "pipe"],
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      if (process.env.XERR) process.stderr.write(chunk);
      stderr = (stderr + chunk.toString()).slice(-10_000);
    });
    children.push(child);
    return child;
  };
  const exited = () => {
    const gone = children.find((child) => child.exitCode !== null || child.signalCode !== null);
    return gone ? `a process exited (${gone.spawnargs.at(-1)}):\n${stderr}` : undefined;
  };
  return { children, start, exited };
}

/** Resolves once the API answers ready and the worker (and the bare worker, when named) polls. */
async function waitForService(
  service: { base: string; polled: (taskQueue: string) => Promise<boolean>; exited: () => string | undefined },
  taskQueue: string,
  bareTaskQueue?: string,
) {
  const { base, polled, exited } = service;
  await waitFor("the API to be ready", async () => (await fetch(`${base}/readyz`)).ok, {
    timeoutMs: 120_000,
    abort: exited,
  });
  await waitFor("the worker to poll", () => polled(taskQueue), { timeoutMs: 120_000, abort: exited });
  if (bareTaskQueue) await waitFor("the bare worker to poll", () => polled(bareTaskQueue), { abort: exited });
}

/** The benchmark's user and workspace, in the benchmark's database. */
async function createBenchUser(databaseUrl: string) {
  const prisma = createPrismaClient(databaseUrl, { maxConnections: 1 });
  try {
    await createUserWithWorkspace(prisma, benchUser, { iterations: 100_000 });
  } finally {
    await prisma.$disconnect();
  }
}

/** The service's database, Temporal server and processes (API, worker, bare worker when asked), started. */
async function launchServiceProcesses(options: {
  env?: Record<string, string>;
  bareWorker?: boolean;
  costs?: CostsMode;
}) {
  const costsMode = options.costs ?? "off";
  const db = await benchDatabase({ statementStats: costsMode !== "off" });
  const profiling = profilingOptions(costsMode);
  const temporalServer = await benchTemporal();
  const port = await freePort();
  const taskQueue = `bench-${randomUUID()}`;
  const bareTaskQueue = `bare-${randomUUID()}`;
  const env = serviceEnv({
    databaseUrl: db.url,
    temporal: temporalServer,
    port,
    taskQueue,
    bareTaskQueue,
    extra: { ...profiling.env, ...options.env },
  });
  const { children, start, exited } = serviceChildren(env);
  const apiProcess = start("api/server.ts", profiling.api);
  const worker = start("worker/main.ts", profiling.worker);
  const bareWorker = options.bareWorker ? start("bench/helpers/bare-worker.ts", profiling.worker) : undefined;

  return {
    db,
    profiling,
    temporalServer,
    port,
    taskQueue,
    bareTaskQueue,
    env,
    children,
    exited,
    start,
    apiProcess,
    worker,
    bareWorker,
  };
}

/** CPU seconds used so far by each part of the service. */
function cpuByPart(
  pids: { API: number; worker: number; bareWorker?: number },
  temporalServer: Awaited<ReturnType<typeof benchTemporal>>,
  db: Awaited<ReturnType<typeof benchDatabase>>,
) {
  const own = process.cpuUsage();
  return {
    "load generator": (own.user + own.system) / 1e6,
    API: cpuSeconds(pids.API),
    worker: cpuSeconds(pids.worker),
    ...(pids.bareWorker ? { "bare worker": cpuSeconds(pids.bareWorker) } : {}),
    "Temporal server": cpuSeconds(temporalServer.process.pid!),
    ...postgresParts(db.postmasterPid, temporalServer.cpu?.()),
  };
}

/** A Temporal client of the benchmark's server, with the service's data converter (payloads opened). */
async function benchClient(temporalServer: Awaited<ReturnType<typeof benchTemporal>>, env: NodeJS.ProcessEnv) {
  const connection = await connectTemporalClient(
    clusterConnectionConfig({ TEMPORAL_ADDRESS: temporalServer.address, ...temporalServer.clientEnv }),
  );
  const keys = parseKeyRing(env.SVC_ENCRYPTION_KEY!) as RingKey[];
  const client = new Client({ connection, dataConverter: createDataConverter({ SVC_ENCRYPTION_KEY: keys }) });
  return { connection, client };
}

export async function startServiceProcesses(
  options: { env?: Record<string, string>; bareWorker?: boolean; costs?: CostsMode } = {},
) {
  const launched = await launchServiceProcesses(options);
  const { db, profiling, temporalServer, port, taskQueue, bareTaskQueue, env } = launched;
  const { children, exited, start, apiProcess, bareWorker } = launched;
  let { worker } = launched;

  const base = `http://127.0.0.1:${port}`;
  const { connection, client } = await benchClient(temporalServer, env);
  const costs = profiling.dir ? runCosts({ apiPid: apiProcess.pid!, dir: profiling.dir, db }) : undefined;
  let costsSql = "";
  const stopAll = async () => {
    await connection.close();
    // The statement counters are read before the database stops, the profiles once the processes have.
    costsSql = (await costs?.sqlText().catch((error: Error) => `SQL per run: not read (${error.message})`)) ?? "";
    await Promise.all(children.map((child) => stopChild(child)));
    await temporalServer.stop();
    await db.close();
  };
  const polled = (name: string) => hasPollers(connection, name, { kind: "activity" });

  let api: ApiClient;
  try {
    await waitForService({ base, polled, exited }, taskQueue, bareWorker ? bareTaskQueue : undefined);
    await createBenchUser(db.url);
    api = await loginApiClient(base, benchUser, client);
  } catch (error) {
    await stopAll();
    profiling.remove();
    throw error;
  }

  return {
    client,
    /** The API's loopback base URL. */
    base,
    /** The pids of the service's processes (a Temporal worker's identity is `<pid>@<host>`). */
    pids: {
      API: apiProcess.pid!,
      worker: worker.pid!,
      "Temporal server": temporalServer.process.pid!,
    } as Record<string, number>,
    databaseUrl: db.url,
    bareTaskQueue,
    call: api.call,
    runFlow: api.runFlow,
    /**
     * Kills the worker process with SIGKILL (a lost machine) and starts another in its place; resolves
     * once the new one polls. CPU read by cpu() then starts again from the new process.
     */
    async replaceWorker() {
      const lost = worker;
      lost.kill("SIGKILL");
      await new Promise((resolve) =>
        lost.exitCode !== null || lost.signalCode !== null ? resolve(undefined) : lost.once("exit", resolve),
      );
      children.splice(children.indexOf(lost), 1);
      worker = start("worker/main.ts", profiling.worker);
      this.pids.worker = worker.pid!;
      await waitFor("the new worker to poll", () => polled(taskQueue), { timeoutMs: 120_000, abort: exited });
    },
    /** CPU seconds used so far by each part. */
    cpu: () =>
      cpuByPart({ API: apiProcess.pid!, worker: worker.pid!, bareWorker: bareWorker?.pid }, temporalServer, db),
    /** With `costs`: a column of run-cost meters (begin(), end(runs)) to read at close. */
    costColumn: costs ? (title: string) => costs.column(title) : undefined,
    /** Stops everything; with `costs`, answers the SQL and CPU per run of each column (profiles read, then removed). */
    async close(): Promise<string | undefined> {
      api.close();
      await stopAll();
      if (!costs) return undefined;
      try {
        return `${costs.cpuText()}\n\n${costsSql}`;
      } finally {
        profiling.remove();
      }
    },
  };
}
