import type { Clock } from "../../lib/clock.js";
import type { PrismaClient } from "../../lib/db.js";
import type { EgressGuard } from "../../lib/egress/guarded-fetch.js";
import { createLanguageModels, type LanguageModels } from "../../core/ai/language-models.js";
import type { WorkerMetrics } from "../../lib/operator-metrics.js";
import type { NodeRegistry } from "../../core/nodes/registry.js";
import type { Sandboxes } from "../../core/sandbox/js-sandbox-pool.js";
import { createLogActivities } from "./log.activities.js";
import { createApiKeyStore } from "../../core/credentials/ai-keys.js";
import { createCredentialsService } from "../../core/credentials/credentials.service.js";
import { createNodeCredentials } from "../../core/credentials/node-credentials.js";
import { createAgentActivities } from "./agent.activities.js";
import { createScheduleActivities } from "./schedule.activities.js";
import { createOperationActivities, type OperationActivityConfig } from "./operation.activities.js";
import type { Client } from "@temporalio/client";
import { createNodeActivities, egressGuardFrom, type NodeActivityDeps } from "./node.activities.js";
import type { RunEndedHandOver } from "./node/node-parts.js";
import { createWebhookActivities } from "./webhook.activities.js";
import { createGateActivities } from "./gate.activities.js";
import { createDebounceActivities } from "./debounce.activities.js";
import { lazyTemporalClient } from "./lazy-temporal-client.js";

export interface ActivityDeps {
  prisma: PrismaClient;
  clock: Clock;
  nodes: NodeRegistry;
  /** What every part needs; the node activities need the most. */
  config: NodeActivityDeps["config"] & OperationActivityConfig;
  /** The process's Temporal client, for the activities that start workflows (bulk reruns, concurrency gates); connected on first use when absent. */
  temporal?: Client;
  /** The outbound-call guard; built from the config when absent. */
  egress?: EgressGuard;
  /** Language-model providers; built from the config when absent. */
  models?: LanguageModels;
  /** Operator metrics; absent in tests that do not look at them. */
  metrics?: WorkerMetrics;
  /** The code and transform nodes' sandboxes, one of each per process; built from the config when absent. */
  sandbox?: Sandboxes;
  /** The API's in-process worker: hands each run it ends to the API's waiters (RunEndedHandOver). */
  runEnded?: RunEndedHandOver;
}

/** Every activity of the worker, built from injected clients so tests can hand in their own. */
export function createActivities(deps: ActivityDeps) {
  const egress = deps.egress ?? egressGuardFrom(deps.config);
  const models = deps.models ?? createLanguageModels(deps.config);
  const temporal = lazyTemporalClient(deps.config, deps.temporal);
  const credentials = createCredentialsService(deps);
  const apiKeys = createApiKeyStore({ ...deps, credentials });
  // One per worker process: it caches OAuth2 tokens.
  const nodeCredentials = createNodeCredentials({ credentials, apiKeys, fetch: egress.fetch, clock: deps.clock });
  return {
    ...createLogActivities(deps),
    ...createNodeActivities({ ...deps, egress, models, apiKeys, credentials, nodeCredentials }),
    ...createWebhookActivities({ ...deps, egress }),
    ...createScheduleActivities(deps),
    ...createOperationActivities({ ...deps, temporal }),
    ...createGateActivities({ temporal, prisma: deps.prisma }),
    ...createDebounceActivities(deps),
    ...createAgentActivities({
      ...deps,
      egress,
      models,
      apiKeyFor: nodeCredentials.aiKey,
      credentialsFor: nodeCredentials.forWorkspace,
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
