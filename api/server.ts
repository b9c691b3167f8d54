import { once } from "node:events";
import { loadConfig } from "../lib/config.js";
import { createLogger } from "../lib/logger.js";
import { createApiMetrics, registerQueueGauges, serveProcessMetrics } from "../lib/operator-metrics.js";
import { readGates } from "../core/engine/gate-queues.js";
import { whenParentGone } from "../lib/parent-watch.js";
import { portRefusal } from "../lib/port-refusal.js";
import { startTracing } from "../lib/tracing.js";
import { Runtime } from "@temporalio/worker";
import { loadNodeRegistry } from "../core/custom-nodes.js";
import { createDataConverter } from "../core/engine/data-converter.js";
import { startInlineWorker } from "../worker/inline-worker.js";
import { temporalLogger } from "../lib/temporal/sdk-logger.js";
import { createApp } from "./app.js";
import { answerClientErrors } from "./http/client-errors.js";
import { closeDeps, createDeps } from "./deps.js";
import { schedulePurge } from "../core/maintenance.js";

const config = loadConfig();
const logger = createLogger(config, "api");
const tracing = startTracing(config, "api");
const metrics = createApiMetrics();
const nodes = await loadNodeRegistry(config.CUSTOM_NODES_DIR);
// One data converter for the API's client and its in-process worker: payloads sealed at rest.
const dataConverter = createDataConverter(config);
const base = createDeps(config, logger, { nodes, temporalPlugins: tracing ? [tracing.plugin] : [], dataConverter });
if (config.API_WORKER) Runtime.install({ logger: temporalLogger(logger) });
const inlineWorker = config.API_WORKER
  ? startInlineWorker({
      config,
      logger,
      prisma: base.prisma,
      nodes,
      dataConverter,
      plugins: tracing ? [tracing.plugin] : [],
      // The sync hooks waiting for a run this worker ends take its record instead of reading it.
      runEnded: (run) => base.runEnds.handOver(run.id, run),
    })
  : undefined;
registerQueueGauges(metrics.registry, () => readGates(base, config.TEMPORAL_TASK_QUEUE));
const shuttingDown = new AbortController();
const deps = { ...base, metrics, eagerClient: inlineWorker?.eagerClient, stopping: shuttingDown.signal };
const server = createApp(deps).listen(config.PORT, config.HOST);
answerClientErrors(server);

server.once("error", (error: NodeJS.ErrnoException) => {
  process.stderr.write(`${portRefusal("PORT", config.HOST, config.PORT, error)}\n`);
  process.exit(1);
});
await once(server, "listening");
logger.info(`API listening on http://${config.HOST}:${config.PORT}`);
// The namespace's search attributes, registered now rather than by the first run or /readyz.
deps
  .prepareNamespace()
  .catch((error: Error) =>
    logger.warn(`Search attributes not registered yet (retried at /readyz and at the next run): ${error.message}`),
  );
const stopPurge = schedulePurge(deps);
const metricsServer = await serveProcessMetrics(metrics.registry, {
  host: config.METRICS_HOST,
  port: config.API_METRICS_PORT,
  setting: "API_METRICS_PORT",
  logger,
});
if (metricsServer) logger.info(`API metrics on http://${config.METRICS_HOST}:${metricsServer.port}/metrics`);

/** How long a stop lets in-flight requests finish before it closes their connections. */
const REQUESTS_GRACE_MS = 10_000;
let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "API shutting down");
  stopPurge();
  await metricsServer?.close();
  // Stop accepting, end the run event streams, let in-flight requests finish, then drop idle
  // keep-alive connections.
  const closed = new Promise((resolve) => server.close(resolve));
  shuttingDown.abort();
  server.closeIdleConnections();
  const forced = setTimeout(() => server.closeAllConnections(), REQUESTS_GRACE_MS);
  await closed;
  clearTimeout(forced);
  await inlineWorker?.stop();
  await closeDeps(deps);
  await tracing?.shutdown();
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
// Bounded: requests get their grace before their connections are closed, the in-process worker
// its grace time, and the rest of the stop 30 s more.
whenParentGone(() => void shutdown("npm start is gone"), {
  exitWithinMs: REQUESTS_GRACE_MS + config.WORKER_SHUTDOWN_GRACE + 30_000,
});
