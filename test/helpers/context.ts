// Shared handles for tests: the run's database and Temporal server (from the global setup),
// configuration, and a real worker on a task queue of the test's own.
import { randomUUID } from "node:crypto";
import type { Client } from "@temporalio/client";
import { DefaultLogger, Runtime, type Worker } from "@temporalio/worker";
import { inject } from "vitest";
import { createDeps, type AppDeps } from "../../api/deps.js";
import { systemClock, type Clock } from "../../lib/clock.js";
import { parseConfig, type Config } from "../../lib/config.js";
import { parseKeyRing, type RingKey } from "../../lib/crypto/key-ring.js";
import { createJsonSeal, type JsonSeal } from "../../lib/crypto/sealed-json.js";
import { createLogger } from "../../lib/logger.js";
import { createTemporalClient } from "../../lib/temporal/client.js";
import { connectTemporalClient, connectTemporalWorker } from "../../lib/temporal/connection.js";
import { createPrismaClient, type PrismaClient } from "../../lib/db.js";
import { createActivities, type Activities } from "../../worker/activities/index.js";
import { builtinNodes } from "../../core/nodes/index.js";
import { createNodeRegistry, type NodeRegistry } from "../../core/nodes/registry.js";
import { createDataConverter, type ServiceDataConverter } from "../../core/engine/data-converter.js";
import { createWorker } from "../../worker/worker.js";

// Workers in tests report errors only (failing activities are expected in many tests).
try {
  Runtime.install({ logger: new DefaultLogger("ERROR") });
} catch {
  // Installed already: an earlier test file in this process (vitest's isolate: false) did.
}

/**
 * The key ring of the tests (SVC_ENCRYPTION_KEY): 32 bytes of plain text, no secret. The replay
 * fixture worker/workflows/histories/encrypted.* is sealed under it: keep it as it is.
 */
export const TEST_ENCRYPTION_KEY = `test:${Buffer.from("svc-test-encryption-key-32-bytes").toString("base64")}`;

export function testConfig(overrides: Record<string, string> = {}): Config {
  return parseConfig({
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    DATABASE_URL: inject("databaseUrl"),
    TEMPORAL_ADDRESS: inject("temporalAddress"),
    TEMPORAL_TASK_QUEUE: `test-${randomUUID()}`,
    // The spec's minimum keeps password hashing quick in tests.
    PASSWORD_HASH_ITERATIONS: "100000",
    // Test files share 127.0.0.1: per-address login limits are tested with their own addresses.
    LOGIN_MAX_ATTEMPTS_PER_IP: "1000000",
    PASSWORD_RESET_MAX_REQUESTS_PER_IP: "1000000",
    INVITE_MAX_REQUESTS_PER_IP: "1000000",
    // A fixed key: credentials stored by one test process open in another (API and worker).
    SVC_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ...overrides,
  });
}

/** How the test processes store run payloads: sealed under TEST_ENCRYPTION_KEY. */
export const testSeal: JsonSeal = createJsonSeal(parseKeyRing(TEST_ENCRYPTION_KEY) as RingKey[]);

let prisma: PrismaClient | undefined;
/** One Prisma client per test file. */
export function testPrisma(): PrismaClient {
  prisma ??= createPrismaClient(inject("databaseUrl"), { maxConnections: 4 });
  return prisma;
}

/** The data converter of the test processes: payloads sealed under TEST_ENCRYPTION_KEY. */
export function testDataConverter(overrides: Record<string, string> = {}): ServiceDataConverter {
  return createDataConverter(testConfig(overrides));
}

export async function testTemporalClient(): Promise<Client> {
  const config = testConfig();
  return createTemporalClient(config, await connectTemporalClient(config), { dataConverter: testDataConverter() });
}

/**
 * Runs `body` while a real worker polls a fresh task queue; the worker is shut down afterwards.
 * Activities default to the real ones over the test database.
 */
export async function withWorker<T>(
  body: (context: { taskQueue: string; worker: Worker }) => Promise<T>,
  options: { activities?: Activities; taskQueue?: string; nodes?: NodeRegistry; clock?: Clock } = {},
): Promise<T> {
  const taskQueue = options.taskQueue ?? `test-${randomUUID()}`;
  const connection = await connectTemporalWorker(testConfig());
  try {
    const worker = await createWorker({
      connection,
      namespace: "default",
      taskQueue,
      activities:
        options.activities ??
        createActivities({
          prisma: testPrisma(),
          clock: options.clock ?? systemClock,
          nodes: options.nodes ?? createNodeRegistry(builtinNodes),
          config: testConfig(),
        }),
      dataConverter: testDataConverter(),
      workflowBundle: { codePath: inject("workflowBundlePath") },
      shutdownGraceTime: "2 seconds",
    });
    return await worker.runUntil(body({ taskQueue, worker }));
  } finally {
    await connection.close();
  }
}

/** API dependencies over the test run's database and Temporal server; close them with closeDeps. */
export function testDeps(overrides: Record<string, string> = {}, clock?: Clock): AppDeps {
  const config = testConfig(overrides);
  return createDeps(config, createLogger(config, "api-test"), { clock });
}

/** A run's row as stored, its payloads (sealed at rest) opened; null when there is none. */
export async function openedRun(id: string) {
  const run = await testPrisma().run.findUnique({ where: { id } });
  return (
    run && {
      ...run,
      input: testSeal.open(run.input),
      output: testSeal.open(run.output),
      error: testSeal.open(run.error),
    }
  );
}

/** A run's step rows by node and attempt, their outputs and errors (sealed at rest) opened. */
export async function openedSteps(runId: string) {
  const steps = await testPrisma().runStep.findMany({
    where: { runId },
    orderBy: [{ nodeId: "asc" }, { attempt: "asc" }],
  });
  return steps.map((step) => ({ ...step, output: testSeal.open(step.output), error: testSeal.open(step.error) }));
}

/** A wait's row with its message and proposed tool arguments (sealed at rest) opened. */
export function openedWait<W extends { message: string | null; toolArguments: string | null }>(wait: W): W {
  return {
    ...wait,
    message: wait.message === null ? null : testSeal.openText(wait.message),
    toolArguments: wait.toolArguments === null ? null : testSeal.openText(wait.toolArguments),
  };
}
