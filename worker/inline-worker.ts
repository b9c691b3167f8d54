// A worker inside the API process (API_WORKER): the runs the API starts begin on it at once, as
// the answer to their start carries their first workflow task (eager workflow start), instead of
// the server dispatching that task to a worker that polls for it. It runs workflow tasks and
// local activities (quick nodes, bookkeeping) of the task queue; regular nodes' activities are
// left to the worker processes, so that the API process does not take on the slow work too.
// Eager start needs the starting client and the worker to share a NativeConnection.
import { Client } from "@temporalio/client";
import type { DataConverter } from "@temporalio/common";
import type { OpenTelemetryPlugin } from "@temporalio/interceptors-opentelemetry";
import type { NativeConnection, Worker } from "@temporalio/worker";
import { systemClock } from "../lib/clock.js";
import type { Config } from "../lib/config.js";
import type { PrismaClient } from "../lib/db.js";
import type { Logger } from "../lib/logger.js";
import { connectTemporalWorker, renewWorkerConnection } from "../lib/temporal-connection.js";
import { createActivities } from "./activities/index.js";
import type { NodeRegistry } from "../core/nodes/registry.js";
import { createJsSandboxPool } from "../core/sandbox/js-sandbox-pool.js";
import { createWorker, type WorkerDeps } from "./worker.js";

const RETRY_MS = 2000;

export interface InlineWorker {
  /** The client that starts runs eagerly on this worker, once it runs; undefined until then. */
  eagerClient(): Client | undefined;
  stop(): Promise<void>;
}

/**
 * Starts the worker in the background (bundling the workflows takes a few seconds, and Temporal
 * may not be up yet: it tries again every RETRY_MS), so the process it lives in starts at once.
 */
export function startInlineWorker(deps: {
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
}): InlineWorker {
  const { config, logger } = deps;
  let client: Client | undefined;
  let worker: Worker | undefined;
  let connection: NativeConnection | undefined;
  let stopping = false;
  let stopRenewal = () => {};
  let retry: NodeJS.Timeout | undefined;
  let stopped: Promise<void> = Promise.resolve();
  // Only local nodes run here; a custom one may still use env.sandbox. Threads start on first use.
  const sandbox = createJsSandboxPool({ threads: config.CODE_SANDBOX_THREADS });

  const start = async (): Promise<void> => {
    try {
      connection = await connectTemporalWorker(config);
      worker = await createWorker({
        connection,
        namespace: config.TEMPORAL_NAMESPACE,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        activities: createActivities({ prisma: deps.prisma, clock: systemClock, nodes: deps.nodes, config, sandbox }),
        dataConverter: deps.dataConverter,
        shutdownGraceTime: config.WORKER_SHUTDOWN_GRACE,
        plugins: deps.plugins ?? [],
        localActivitiesOnly: true,
        slots: config.API_WORKER_SLOTS,
        ...(deps.workflowBundle ? { workflowBundle: deps.workflowBundle } : {}),
      });
    } catch (error) {
      await connection?.close().catch(() => undefined);
      connection = undefined;
      if (stopping) return;
      logger.warn({ err: error }, `in-process worker not started; trying again in ${RETRY_MS} ms`);
      retry = setTimeout(() => void start(), RETRY_MS);
      return;
    }
    if (stopping) return;
    const running = worker.run();
    const eagerClientOn = (on: NativeConnection) =>
      new Client({
        connection: on,
        namespace: config.TEMPORAL_NAMESPACE,
        plugins: deps.plugins ?? [],
        dataConverter: deps.dataConverter,
      });
    client = eagerClientOn(connection);
    // Eager starts need the worker's own connection: a renewed one gets a client of its own.
    stopRenewal = renewWorkerConnection(config, worker, {
      log: logger,
      onRenewed: (renewed) => {
        connection = renewed;
        if (client) client = eagerClientOn(renewed);
      },
    });
    logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, "in-process worker started: runs start eagerly");
    running.catch((error: unknown) => {
      client = undefined;
      if (!stopping) logger.error({ err: error }, "in-process worker stopped; runs start through the server");
    });
    stopped = running.catch(() => undefined);
  };
  void start();

  return {
    eagerClient: () => client,
    async stop() {
      stopping = true;
      clearTimeout(retry);
      stopRenewal();
      client = undefined;
      if (worker?.getState() === "RUNNING") worker.shutdown();
      await stopped;
      await sandbox.close();
      await connection?.close().catch(() => undefined);
    },
  };
}
