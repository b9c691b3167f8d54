// How runFlow calls its activities: the bookkeeping that records the run's progress, and each
// node's activity (regular or local) with the node's timeout and retry policy.
import {
  proxyActivities,
  proxyLocalActivities,
  type ActivityOptions,
  type LocalActivityOptions,
} from "@temporalio/workflow";
import type { NodeActivity, RunActivities } from "../../activities/node.activities.js";
import { operatorText } from "../../../core/contracts/operator-text.js";
import { NON_RETRYABLE_ERRORS, type NodePlan } from "../../../core/contracts/run-flow.js";

// Recording the run's progress: local activities (idempotent database writes, run by this
// worker without a round trip through the server), retried until the database answers.
export const bookkeeping = proxyLocalActivities<RunActivities>({
  startToCloseTimeout: "1 minute",
  localRetryThreshold: "10 seconds",
  retry: { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "1 minute" },
});

/** A node's activities (named after its type) and the run's bookkeeping, as one node calls them. */
export type Activities = Record<string, NodeActivity> & RunActivities;

/**
 * Nodes allowed more time than this get a heartbeat timeout: Temporal then notices a lost worker
 * within HEARTBEAT_TIMEOUT_MS rather than at the node's own timeout. It costs the server CPU per
 * activity (docs/engine.md, "Figures"), which quick nodes (the control, utility and trigger
 * nodes, a minute at most) are spared: their timeout is soon enough.
 * Cancellation reaches every running activity through its heartbeats either way.
 */
const HEARTBEAT_TIMEOUT_ABOVE_MS = 60_000;
const HEARTBEAT_TIMEOUT_MS = 20_000;
/**
 * A node running per item heartbeats its progress at the pace the SDK allows (4/5 of this): a lost
 * worker is noticed, and a cancellation reaches the items, within seconds.
 */
const ITEMS_HEARTBEAT_TIMEOUT_MS = 6000;

const retryOf = (plan: NodePlan): ActivityOptions["retry"] => ({
  maximumAttempts: plan.retry.max_attempts,
  initialInterval: plan.retry.initial_interval_ms,
  backoffCoefficient: plan.retry.backoff_coefficient,
  maximumInterval: plan.retry.max_interval_ms,
  nonRetryableErrorTypes: [...NON_RETRYABLE_ERRORS],
});

function activityOptions(plan: NodePlan): ActivityOptions {
  return {
    startToCloseTimeout: plan.timeoutMs,
    ...(plan.items
      ? { heartbeatTimeout: ITEMS_HEARTBEAT_TIMEOUT_MS }
      : plan.timeoutMs > HEARTBEAT_TIMEOUT_ABOVE_MS
        ? { heartbeatTimeout: HEARTBEAT_TIMEOUT_MS }
        : {}),
    retry: retryOf(plan),
    ...(plan.summary ? { summary: operatorText(plan.summary) } : {}),
  };
}

/**
 * A local node runs in the workflow task; a retry waits on a durable timer once its backoff
 * passes LOCAL_RETRY_THRESHOLD (before that, the worker waits in memory).
 */
const LOCAL_RETRY_THRESHOLD = "5 seconds";
function localActivityOptions(plan: NodePlan): LocalActivityOptions {
  return {
    startToCloseTimeout: plan.timeoutMs,
    localRetryThreshold: LOCAL_RETRY_THRESHOLD,
    retry: retryOf(plan),
    ...(plan.summary ? { summary: operatorText(plan.summary) } : {}),
  };
}

/** The activities a node calls: local ones in the workflow task, regular ones through the server. */
export function nodeActivities(plan: NodePlan): Activities {
  return plan.execution === "local"
    ? proxyLocalActivities<Activities>(localActivityOptions(plan))
    : proxyActivities<Activities>(activityOptions(plan));
}
