// A worker inside the API process (API_WORKER): the runs the API starts begin on it at once, as
// the answer to their start carries their first workflow task (eager workflow start), instead of
// the server dispatching that task to a worker that polls for it. It runs workflow tasks and
// local activities (quick nodes, bookkeeping) of the task queue; regular nodes' activities are
// left to the worker processes, so that the API process does not take on the slow work too.
// Eager start needs the starting client and the worker to share a NativeConnection.
import type { Client } from "@temporalio/client";
import type { DataConverter } from "@temporalio/common";
import type { OpenTelemetryPlugin } from "@temporalio/interceptors-opentelemetry";
import type { NativeConnection, Worker } from "@temporalio/worker";
import { systemClock } from "../lib/clock.js";
import type { Config } from "../lib/config.js";
import type { PrismaClient } from "../lib/db.js";
import type { Logger } from "../lib/logger.js";
import { createTemporalClient } from "../lib/temporal/client.js";
import { connectTemporalWorker, renewWorkerConnection } from "../lib/temporal/connection.js";
import { createActivities } from "./activities/index.js";
import type { RunEndedHandOver } from "./activities/node/node-parts.js";
import type { NodeRegistry } from "../core/nodes/registry.js";
import { createSandboxes, type Sandboxes } from "../core/sandbox/js-sandbox-pool.js";
import { createWorker, type WorkerDeps } from "./worker.js";

const RETRY_MS = 2000;

export interface InlineWorker {
  /** The client that starts runs eagerly on this worker, once it runs; undefined until then. */
  eagerClient(): Client | undefined;
  stop(): Promise<void>;
}

export interface InlineWorkerDeps {
  config: Config;
  logger: Logger;
  prisma: PrismaClient;
  nodes: NodeRegistry;
  /** The process's one data converter, shared with the API's client. */
  dataConverter: DataConverter;
  /** Temporal plugins for the worker and its client (tracing). */
  plugins?: OpenTelemetryPlugin[];
  /** A prebuilt workflow bundle (tests); otherwise the worker bundles the workflows. */
  workflowBundle?: WorkerDeps["workflowBundle"];
  /** Each run this worker ends, to the API's waiters for it (ActivityDeps.runEnded). */
  runEnded?: RunEndedHandOver;
}

/** What the in-process worker holds while it starts, runs and stops. */
interface InlineWorkerState {
  readonly sandbox: Sandboxes;
  client: Client | undefined;
  worker: Worker | undefined;
  connection: NativeConnection | undefined;
  stopping: boolean;
  stopRenewal: () => void;
  retry: NodeJS.Timeout | undefined;
  stopped: Promise<void>;
}

/**
 * Starts the worker in the background (bundling the workflows takes a few seconds, and Temporal
 * may not be up yet: it tries again every RETRY_MS), so the process it lives in starts at once.
 */
export function startInlineWorker(deps: InlineWorkerDeps): InlineWorker {
  const state: InlineWorkerState = {
    // Only local nodes run here, transform among them: its JSONata runs in the sandbox's processes,
    // never on the API's event loop (as a custom node's env.sandbox calls do). They start on first use.
    sandbox: createSandboxes(deps.config),
    client: undefined,
    worker: undefined,
    connection: undefined,
    stopping: false,
    stopRenewal: () => {},
    retry: undefined,
    stopped: Promise.resolve(),
  };
  void startWorker(deps, state);
  return {
    eagerClient: () => state.client,
    stop: () => stopInlineWorker(state),
  };
}

/** Connects and creates the worker, then runs it; on failure, tries again in RETRY_MS. */
async function startWorker(deps: InlineWorkerDeps, state: InlineWorkerState): Promise<void> {
  const { config, logger } = deps;
  let worker: Worker;
  try {
    state.connection = await connectTemporalWorker(config);
    worker = state.worker = await createWorker({
      connection: state.connection,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      activities: createActivities({
        prisma: deps.prisma,
        clock: systemClock,
        nodes: deps.nodes,
        config,
        sandbox: state.sandbox,
        runEnded: deps.runEnded,
      }),
      dataConverter: deps.dataConverter,
      shutdownGraceTime: config.WORKER_SHUTDOWN_GRACE,
      plugins: deps.plugins ?? [],
      localActivitiesOnly: true,
      slots: config.API_WORKER_SLOTS,
      bundlePath: config.WORKFLOW_BUNDLE,
      ...(deps.workflowBundle ? { workflowBundle: deps.workflowBundle } : {}),
    });
  } catch (error) {
    await state.connection?.close().catch(() => undefined);
    state.connection = undefined;
    if (state.stopping) return;
    logger.warn({ err: error }, `in-process worker not started; trying again in ${RETRY_MS} ms`);
    state.retry = setTimeout(() => void startWorker(deps, state), RETRY_MS);
    return;
  }
  if (state.stopping) return;
  runWorker(deps, state, worker, state.connection);
}

/** Runs the created worker, with the client that starts runs eagerly on it. */
function runWorker(deps: InlineWorkerDeps, state: InlineWorkerState, worker: Worker, connection: NativeConnection) {
  const { config, logger } = deps;
  const running = worker.run();
  state.client = eagerClientOn(deps, connection);
  // Eager starts need the worker's own connection: a renewed one gets a client of its own.
  state.stopRenewal = renewWorkerConnection(config, worker, {
    log: logger,
    onRenewed: (renewed) => {
      state.connection = renewed;
      if (state.client) state.client = eagerClientOn(deps, renewed);
    },
  });
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, "in-process worker started: runs start eagerly");
  running.catch((error: unknown) => {
    state.client = undefined;
    if (!state.stopping) logger.error({ err: error }, "in-process worker stopped; runs start through the server");
  });
  state.stopped = running.catch(() => undefined);
}

const eagerClientOn = (deps: InlineWorkerDeps, connection: NativeConnection) =>
  createTemporalClient(deps.config, connection, { dataConverter: deps.dataConverter, plugins: deps.plugins });

async function stopInlineWorker(state: InlineWorkerState): Promise<void> {
  state.stopping = true;
  clearTimeout(state.retry);
  state.stopRenewal();
  state.client = undefined;
  if (state.worker?.getState() === "RUNNING") state.worker.shutdown();
  await state.stopped;
  await state.sandbox.close();
  await state.connection?.close().catch(() => undefined);
}
