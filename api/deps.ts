import type { ApiMetrics } from "../lib/operator-metrics.js";
import type { Client, ClientPlugin } from "@temporalio/client";
import { systemClock, type Clock } from "../lib/clock.js";
import type { Config } from "../lib/config.js";
import { createPrismaClient, type PrismaClient } from "../lib/db.js";
import type { Logger } from "../lib/logger.js";
import { createMailer, type Mailer } from "../lib/mail.js";
import { createRunEndListener, type RunEndListener } from "../lib/run-end-notices.js";
import { createAgentTextListener, type AgentTextListener } from "../lib/agent-text.js";
import { createTemporalClient } from "../lib/temporal/client.js";
import { lazyTemporalClient } from "../lib/temporal/connection.js";
import { ensureSearchAttributes } from "../core/engine/search-attributes.js";
import { createDataConverter, type ServiceDataConverter } from "../core/engine/data-converter.js";
import { builtinNodes } from "../core/nodes/index.js";
import { createNodeRegistry, type NodeRegistry } from "../core/nodes/registry.js";

/** The clients the API shares across requests: one of each kind per process. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  prisma: PrismaClient;
  temporal: Client;
  /** The data converter of every Temporal client and worker of the process (payloads sealed at rest). */
  dataConverter: ServiceDataConverter;
  clock: Clock;
  /** Node types known to this installation (built-in and custom). */
  nodes: NodeRegistry;
  /**
   * With API_WORKER, the client that starts workflows eagerly on this process's own worker, once
   * that worker runs (see worker/inline-worker.ts); otherwise starts go through `temporal`.
   */
  eagerClient?: () => Client | undefined;
  /**
   * Registers the search attributes runs carry on the namespace (once per process, idempotent, as
   * the worker does): /readyz answers ready only after it succeeded, so the API does not depend on
   * the worker having started first. A failure is retried at the next call.
   */
  prepareNamespace: () => Promise<void>;
  /** Wakes requests that wait for a run's end (sync hooks, agent runs with `wait`). */
  runEnds: RunEndListener;
  /** Agents' model text as it is written (GET /api/agent/runs/{id}/events); listens once asked. */
  agentText: AgentTextListener;
  /** The SMTP server's mailer (SMTP_HOST); undefined without one: links are handed over. */
  mailer?: Mailer;
  /** Operator metrics; absent in tests that do not look at them. */
  metrics?: ApiMetrics;
  /** The built dashboard served at `/` (default web/dist); tests point it elsewhere. */
  dashboardDir?: string;
  /**
   * Aborted when the process starts to stop: requests that would stay open (run event streams)
   * end then, rather than holding the shutdown until its forced close.
   */
  stopping?: AbortSignal;
}

/** How long registering the search attributes may hold a request (or /readyz) up. */
const PREPARE_DEADLINE_MS = 5_000;

export function createDeps(
  config: Config,
  logger: Logger,
  {
    clock = systemClock,
    nodes = createNodeRegistry(builtinNodes),
    temporalPlugins = [],
    dataConverter = createDataConverter(config),
  }: {
    clock?: Clock;
    nodes?: NodeRegistry;
    temporalPlugins?: ClientPlugin[];
    /** The process's one data converter, when it has others than this client (API_WORKER). */
    dataConverter?: ServiceDataConverter;
  } = {},
): AppDeps {
  // Lazy: the API starts (and /readyz answers 503) while Temporal is still coming up.
  const connection = lazyTemporalClient(config, {}, logger);
  let prepared: Promise<void> | undefined;
  const prepareNamespace = () =>
    (prepared ??= connection
      .withDeadline(Date.now() + PREPARE_DEADLINE_MS, () =>
        ensureSearchAttributes(connection, config.TEMPORAL_NAMESPACE),
      )
      .catch((error: unknown) => {
        prepared = undefined;
        throw error;
      }));
  return {
    config,
    logger,
    prisma: createPrismaClient(config.DATABASE_URL),
    temporal: createTemporalClient(config, connection, { dataConverter, plugins: temporalPlugins }),
    dataConverter,
    clock,
    nodes,
    prepareNamespace,
    runEnds: createRunEndListener({ databaseUrl: config.DATABASE_URL, logger }),
    agentText: createAgentTextListener({ databaseUrl: config.DATABASE_URL, logger }),
    mailer: createMailer(config),
  };
}

export async function closeDeps(deps: AppDeps): Promise<void> {
  deps.mailer?.close();
  await Promise.allSettled([
    deps.temporal.connection.close(),
    deps.prisma.$disconnect(),
    deps.runEnds.close(),
    deps.agentText.close(),
  ]);
}
