// What the node activities share, built once per worker by createNodeActivities: the clients,
// the step and blob stores, and what a node's env is made of. Each activity takes the parts it uses.
import { ApplicationFailure } from "@temporalio/activity";
import type { Clock } from "../../../lib/clock.js";
import type { Config } from "../../../lib/config.js";
import type { JsonSeal } from "../../../lib/crypto/sealed-json.js";
import type { PrismaClient } from "../../../lib/db.js";
import type { EgressGuard } from "../../../lib/egress/guarded-fetch.js";
import type { WorkerMetrics } from "../../../lib/operator-metrics.js";
import type { AiConfigKey, LanguageModels } from "../../../core/ai/language-models.js";
import type { NodeCredentialsHost } from "../../../core/credentials/node-credentials.js";
import type { NodeDefinition } from "../../../core/nodes/define-node.js";
import type { NodeRegistry } from "../../../core/nodes/registry.js";
import type { BlobStore } from "../../../core/runs/records/blobs.js";
import type { RunRow } from "../../../core/runs/records/run-records.js";
import type { createStepStore } from "../../../core/runs/records/steps.js";
import type { ItemRecords } from "../../../core/runs/records/item-records.js";
import type { Sandboxes } from "../../../core/sandbox/js-sandbox-pool.js";

export type EgressConfigKey =
  "EGRESS_ALLOWLIST" | "EGRESS_TIMEOUT" | "EGRESS_MAX_RESPONSE_BYTES" | "EGRESS_MAX_REDIRECTS";

/** The settings the node activities read. */
export type NodeActivityConfig = Pick<
  Config,
  | "RUN_OUTPUT_OFFLOAD_BYTES"
  | "OBJECT_STORAGE_DIR"
  | "OBJECT_MAX_BYTES"
  | "SVC_ENCRYPTION_KEY"
  | "AI_DEFAULT_PROVIDER"
  | "AI_DEFAULT_MODEL"
  | "AI_KEYS_SECRET"
  | "CODE_SANDBOX_THREADS"
  | "RUN_TREE_MAX_DEPTH"
  | "RUN_TREE_MAX_RUNS"
  | "ITEMS_MAX_COUNT"
  | "ITEMS_MAX_BYTES"
  | "EXPRESSION_SANDBOX_PROCESSES"
  | EgressConfigKey
  | AiConfigKey
>;

// The step log's types as its store uses them, whichever module of core/runs/ declares them.
export type StepStore = ReturnType<typeof createStepStore>;
export type StepKey = Parameters<StepStore["start"]>[0];
export type StepEnd = ReturnType<StepStore["success"]>;

export interface NodeActivityParts {
  prisma: PrismaClient;
  clock: Clock;
  nodes: NodeRegistry;
  config: NodeActivityConfig;
  seal: JsonSeal;
  steps: StepStore;
  items: ItemRecords;
  blobs: BlobStore;
  egress: EgressGuard;
  models: LanguageModels;
  sandbox: Sandboxes;
  nodeCredentials: NodeCredentialsHost;
  /** Operator metrics; absent in tests that do not look at them. */
  metrics?: Pick<WorkerMetrics, "nodeDuration" | "runsStarted" | "runsFinished" | "tokens" | "cost">;
  /** See ActivityDeps.runEnded. */
  runEnded?: RunEndedHandOver;
}

/**
 * Hands the record a run's end wrote to whoever waits for that run in this process: the API's
 * sync hooks, when this is its in-process worker (they need not read the run again).
 */
export type RunEndedHandOver = (run: RunRow) => void;

/** The registered definition of a node type; an unknown type fails the activity for good. */
export function definitionOf(nodes: NodeRegistry, type: string): NodeDefinition {
  const definition = nodes.get(type);
  if (!definition) throw ApplicationFailure.nonRetryable(`Unknown node type "${type}"`, "NodeConfigError");
  return definition;
}
