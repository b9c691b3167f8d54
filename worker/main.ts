import { NativeConnection, Runtime } from "@temporalio/worker";
import { loadConfig } from "../lib/config.js";
import { createPrismaClient } from "../lib/db.js";
import { createLogger } from "../lib/logger.js";
import { createActivities } from "./activities/index.js";
import { temporalLogger } from "./temporal-logger.js";
import { createWorker } from "./worker.js";

const config = loadConfig();
const logger = createLogger(config, "worker");
Runtime.install({ logger: temporalLogger(logger) });
const prisma = createPrismaClient(config.DATABASE_URL);

let connection: NativeConnection;
try {
  connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
} catch (error) {
  logger.fatal(`Cannot reach Temporal at ${config.TEMPORAL_ADDRESS}: ${(error as Error).message}`);
  process.exit(1);
}

const worker = await createWorker({
  connection,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueue: config.TEMPORAL_TASK_QUEUE,
  activities: createActivities({ prisma }),
});
logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE }, "worker started");

// The SDK's runtime turns SIGINT/SIGTERM into worker.shutdown(): in-flight tasks get the grace time.
try {
  await worker.run();
} finally {
  await connection.close();
  await prisma.$disconnect();
  logger.info("worker stopped");
}
