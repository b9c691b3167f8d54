// What the node activities share, built once per worker by createNodeActivities: the clients,
// the step and blob stores, and what a node's env is made of; how a node's error travels as the
// failure of its activity and shows in its step row; and how a step's own record waits out a
// database outage. Each activity takes the parts it uses.
import { ApplicationFailure, Context } from "@temporalio/activity";
import type { Clock } from "../../../lib/clock.js";
import type { Config } from "../../../lib/config.js";
import type { JsonSeal } from "../../../lib/crypto/sealed-json.js";
import { databaseErrorReason, type PrismaClient } from "../../../lib/db.js";
import { type EgressGuard, EgressLimitError, EgressRefusedError } from "../../../lib/egress/guarded-fetch.js";
import type { WorkerMetrics } from "../../../lib/operator-metrics.js";
import type { AiConfigKey, LanguageModels } from "../../../core/ai/language-models.js";
import type { NodeCredentialsHost } from "../../../core/credentials/node-credentials.js";
import type { NodeDefinition } from "../../../core/nodes/define-node.js";
import type { NodeRegistry } from "../../../core/nodes/registry.js";
import type { BlobStore } from "../../../core/runs/records/blobs.js";
import type { RunRow } from "../../../core/runs/records/run-records.js";
import type { createStepStore, StepError } from "../../../core/runs/records/steps.js";
import type { ItemRecords } from "../../../core/runs/records/item-records.js";
import type { Sandboxes } from "../../../core/sandbox/js-sandbox-pool.js";
import { NodeConfigError, NodeError } from "../../../core/nodes/node-error.js";
import { RunTreeClosed } from "../../../core/runs/start/child-runs.js";
import { RUN_TREE_CLOSED_ERROR } from "../../../core/contracts/run-flow.js";
import { whileDatabaseUnavailable } from "../../../lib/db-outage.js";

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

/** A node's error as the failure of its activity: typed, and not retried when a retry cannot help. */
export function toFailure(error: unknown): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  // The run's tree was closed by a cancel: the workflow reads this type as the node's cancellation.
  if (error instanceof RunTreeClosed) {
    return ApplicationFailure.create({ message: error.message, type: RUN_TREE_CLOSED_ERROR, nonRetryable: true });
  }
  if (error instanceof NodeError) {
    return ApplicationFailure.create({
      message: error.message,
      type: error instanceof NodeConfigError ? error.name : error.retryable ? "NodeError" : "NodeFatalError",
      nonRetryable: !error.retryable,
      details: error.details === undefined ? undefined : [error.details],
    });
  }
  const err = error instanceof Error ? error : new Error(String(error));
  // A database error says what went wrong, not which line of ours called Prisma.
  const databaseReason = databaseErrorReason(err);
  if (databaseReason !== undefined) {
    return ApplicationFailure.create({
      message: `Database error: ${databaseReason}`,
      type: "DatabaseError",
      cause: err,
    });
  }
  // A refused destination or an oversize answer would be met again by the next attempt.
  const final = err instanceof EgressRefusedError || err instanceof EgressLimitError;
  return ApplicationFailure.create({
    message: err.message,
    type: err.name || "Error",
    nonRetryable: final,
    cause: err,
  });
}

/** A node's config that cannot run: the same config on the same data would fail again, not retried. */
export const configFailure = (nodeId: string, message: string) => toFailure(new NodeConfigError(nodeId, message));

/** The failure as its step row keeps it. */
export const stepErrorOf = (failure: ApplicationFailure): StepError => ({
  message: failure.message,
  type: failure.type ?? undefined,
  retryable: !failure.nonRetryable,
});

/**
 * A step's own record (its start, its failure, the run's end) waits out a database outage within
 * the attempt's time rather than failing the attempt: an outage must not use up a node's
 * attempts (a delay has three) nor turn a node's own error into a database error.
 */
export function recordWhenDatabaseAnswers<T>(write: () => Promise<T>): Promise<T> {
  const { info, cancellationSignal } = Context.current();
  const timeoutMs = info.startToCloseTimeoutMs || 60_000;
  // A second to spare for the attempt to answer within its time.
  const deadline = (info.currentAttemptScheduledTimestampMs || Date.now()) + timeoutMs - 1000;
  return whileDatabaseUnavailable(write, { deadline, signal: cancellationSignal });
}
