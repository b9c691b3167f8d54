import type { Connection } from "@temporalio/client";
import { Runtime, type NativeConnection } from "@temporalio/worker";
import { systemClock } from "../lib/clock.js";
import { loadConfig } from "../lib/config.js";
import { createPrismaClient } from "../lib/db.js";
import { createLogger } from "../lib/logger.js";
import { createWorkerMetrics, serveProcessMetrics } from "../lib/operator-metrics.js";
import { whenParentGone } from "../lib/parent-watch.js";
import { portRefusal } from "../lib/port-refusal.js";
import { startTracing } from "../lib/tracing.js";
import { createActivities } from "./activities/index.js";
import { egressGuardFrom } from "./activities/node.activities.js";
import { startDispatcher } from "./webhooks/dispatcher.js";
import { loadNodeRegistry } from "../core/custom-nodes.js";
import { scheduleReconciler } from "./reconcile-runs.js";
import { createBlobStore } from "../core/runs/records/blobs.js";
import { createJsonSeal } from "../lib/crypto/sealed-json.js";
import { ensureSearchAttributes } from "../core/engine/search-attributes.js";
import { createDataConverter } from "../core/engine/data-converter.js";
import { scheduleKvPurge } from "../core/stores/kv.store.js";
import { createSandboxes } from "../core/sandbox/js-sandbox-pool.js";
import { createTemporalClient } from "../lib/temporal/client.js";
import { connectTemporalClient, connectTemporalWorker, renewWorkerConnection } from "../lib/temporal/connection.js";
import { temporalLogger } from "../lib/temporal/sdk-logger.js";
import { diagnoseTemporalTls } from "../lib/temporal/tls-diagnosis.js";
import { createWorker } from "./worker.js";

const config = loadConfig();
const logger = createLogger(config, "worker");
// The SDK's own worker metrics (task slots, polls, latencies) on their own Prometheus endpoint.
// A busy port leaves the worker running without them, as for the other metrics ports.
try {
  Runtime.install({
    logger: temporalLogger(logger),
    ...(config.TEMPORAL_METRICS_PORT === 0
      ? {}
      : {
          telemetryOptions: {
            metrics: { prometheus: { bindAddress: `${config.METRICS_HOST}:${config.TEMPORAL_METRICS_PORT}` } },
          },
        }),
  });
} catch (error) {
  if (!/prometheus/i.test((error as Error).message)) throw error;
  const cause = /in use/i.test((error as Error).message) ? "in use" : (error as Error);
  logger.error(portRefusal("TEMPORAL_METRICS_PORT", config.METRICS_HOST, config.TEMPORAL_METRICS_PORT, cause));
  Runtime.install({ logger: temporalLogger(logger) });
}
const metrics = createWorkerMetrics();
const tracing = startTracing(config, "worker");
const temporalPlugins = tracing ? [tracing.plugin] : [];
const prisma = createPrismaClient(config.DATABASE_URL);
const nodes = await loadNodeRegistry(config.CUSTOM_NODES_DIR);
// One data converter for the worker and this process's clients: payloads sealed at rest.
const dataConverter = createDataConverter(config);

let connection: NativeConnection;
let clientConnection: Connection;
try {
  connection = await connectTemporalWorker(config);
  clientConnection = await connectTemporalClient(config, {}, logger);
  await ensureSearchAttributes(clientConnection, config.TEMPORAL_NAMESPACE);
} catch (error) {
  const reason = (await diagnoseTemporalTls(config)) ?? (error as Error).message;
  logger.fatal(`Cannot reach Temporal at ${config.TEMPORAL_ADDRESS}: ${reason}`);
  process.exit(1);
}

const egress = egressGuardFrom(config);
// Code nodes' JavaScript (threads) and transform nodes' JSONata (processes) run in these, never on
// this event loop (heartbeats, polls).
const sandbox = createSandboxes(config);
// The process's one client, for the reconciler, the dispatcher and the activities that start runs.
const temporal = createTemporalClient(config, clientConnection, { dataConverter, plugins: temporalPlugins });
const worker = await createWorker({
  connection,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueue: config.TEMPORAL_TASK_QUEUE,
  activities: createActivities({ prisma, clock: systemClock, nodes, config, egress, metrics, sandbox, temporal }),
  dataConverter,
  shutdownGraceTime: config.WORKER_SHUTDOWN_GRACE,
  plugins: temporalPlugins,
  bundlePath: config.WORKFLOW_BUNDLE,
});
// How run payloads are stored (sealed under SVC_ENCRYPTION_KEY when set), for the reconciler and dispatcher.
const seal = createJsonSeal(config.SVC_ENCRYPTION_KEY);
const stopReconciler = scheduleReconciler({
  taskQueue: config.TEMPORAL_TASK_QUEUE,
  prisma,
  clock: systemClock,
  temporal,
  blobs: createBlobStore({ prisma, offloadBytes: config.RUN_OUTPUT_OFFLOAD_BYTES, seal }),
  logger,
  bulkRerunPerSecond: config.BULK_RERUN_PER_SECOND,
});
const stopDispatcher = !config.WEBHOOK_DISPATCHER
  ? () => undefined
  : startDispatcher(
      {
        prisma,
        clock: systemClock,
        temporal,
        config,
        seal,
        nodes,
        logger,
      },
      config.WEBHOOK_DISPATCH_INTERVAL,
    );
const stopKvPurge = scheduleKvPurge({ prisma, clock: systemClock, logger });
// Renewed certificates (or a rotated API key file) reach the worker without a restart.
const stopRenewal = renewWorkerConnection(config, worker, { log: logger });
const metricsServer = await serveProcessMetrics(metrics.registry, {
  host: config.METRICS_HOST,
  port: config.WORKER_METRICS_PORT,
  setting: "WORKER_METRICS_PORT",
  logger,
});
logger.info(
  { taskQueue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE, nodeTypes: nodes.types().length },
  "worker started",
);

// The SDK's runtime turns SIGINT/SIGTERM into worker.shutdown(): in-flight tasks get the grace time.
// Bounded: in-flight activities get their grace time, and the rest of the stop 30 s more.
whenParentGone(
  () => {
    logger.warn("npm start is gone: worker stopping");
    if (worker.getState() === "RUNNING") worker.shutdown();
  },
  { exitWithinMs: config.WORKER_SHUTDOWN_GRACE + 30_000 },
);
try {
  await worker.run();
} finally {
  // Activities have ended (or were cancelled) by now: no evaluation is left to wait for.
  await sandbox.close();
  stopReconciler();
  stopDispatcher();
  await egress.close();
  stopKvPurge();
  stopRenewal();
  await metricsServer?.close();
  await clientConnection.close();
  // The one it runs on now: a renewal replaced the first one.
  await (worker.connection ?? connection).close();
  await prisma.$disconnect();
  await tracing?.shutdown();
  logger.info("worker stopped");
}
