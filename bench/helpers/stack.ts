// The whole service for a benchmark, in one process: a fresh database, a Temporal dev server, the
// API listening on loopback with a logged-in user, a worker, and a Temporal client.
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { DefaultLogger, Runtime, Worker } from "@temporalio/worker";
import { createApp } from "../../api/app.js";
import { closeDeps, createDeps } from "../../api/deps.js";
import { createUserWithWorkspace } from "../../core/users/users.service.js";
import { systemClock } from "../../lib/clock.js";
import { parseConfig } from "../../lib/config.js";
import { createDataConverter } from "../../core/engine/data-converter.js";
import { createLogger } from "../../lib/logger.js";
import { createTemporalClient } from "../../lib/temporal/client.js";
import { connectTemporalClient, connectTemporalWorker } from "../../lib/temporal/connection.js";
import { createActivities } from "../../worker/activities/index.js";
import type { NodeDefinition } from "../../core/nodes/define-node.js";
import { builtinNodes } from "../../core/nodes/index.js";
import { createNodeRegistry } from "../../core/nodes/registry.js";
import pass from "../nodes/pass.node.js";
import { loginApiClient } from "./api-client.js";
import { benchDatabase } from "./database.js";
import { benchEncryptionKey, benchTemporal, benchUser } from "./fixtures.js";

Runtime.install({ logger: new DefaultLogger("ERROR") });

/** The product's equivalent of a no-op activity: a node that returns its input. */
export const passNode = { ...pass, official: false };

export async function startBenchStack(
  options: {
    config?: Record<string, string>;
    /** Besides the built-in nodes. */
    nodes?: NodeDefinition[];
    workflowsPath?: string;
    activities?: Record<string, (...args: never[]) => Promise<unknown>>;
  } = {},
) {
  const db = await benchDatabase();
  const temporalServer = await benchTemporal();
  const config = parseConfig({
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: temporalServer.address,
    ...temporalServer.clientEnv,
    TEMPORAL_TASK_QUEUE: `bench-${randomUUID()}`,
    LOG_LEVEL: "silent",
    PASSWORD_HASH_ITERATIONS: "100000",
    SVC_ENCRYPTION_KEY: benchEncryptionKey,
    ...options.config,
  });
  const dataConverter = createDataConverter(config);
  const nodes = createNodeRegistry([...builtinNodes, ...(options.nodes ?? [])]);
  const deps = createDeps(config, createLogger(config, "bench"), { nodes, dataConverter });
  const server = createApp(deps).listen(0, "127.0.0.1");
  await once(server, "listening");
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const nativeConnection = await connectTemporalWorker(config);
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowsPath: options.workflowsPath ?? new URL("../../worker/workflows/index.ts", import.meta.url).pathname,
    activities: {
      ...createActivities({ prisma: deps.prisma, clock: systemClock, nodes, config }),
      ...options.activities,
    },
    dataConverter,
    maxConcurrentActivityTaskExecutions: 200,
    maxConcurrentWorkflowTaskExecutions: 200,
  });
  const workerRun = worker.run();
  const client = createTemporalClient(config, await connectTemporalClient(config), { dataConverter });

  const { workspace } = await createUserWithWorkspace(deps.prisma, benchUser, { iterations: 100_000 });
  const api = await loginApiClient(base, benchUser, client);

  return {
    config,
    deps,
    prisma: deps.prisma,
    client,
    workspaceId: workspace.workspaceId,
    databaseUrl: db.url,
    /** The API's loopback base URL. */
    base,
    temporalPid: temporalServer.process.pid,
    call: api.call,
    runFlow: api.runFlow,
    async close() {
      api.close();
      server.close();
      if (worker.getState() === "RUNNING") worker.shutdown();
      await workerRun.catch((error: unknown) => console.error("worker stopped:", error));
      await nativeConnection.close();
      await client.connection.close();
      await closeDeps(deps);
      await temporalServer.stop();
      await db.close();
    },
  };
}
