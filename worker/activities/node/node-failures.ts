// What a step log shows and Temporal carries for an error thrown by a node or its bookkeeping.
import { ApplicationFailure } from "@temporalio/activity";
import { databaseErrorReason } from "../../../lib/db.js";
import { EgressLimitError, EgressRefusedError } from "../../../lib/egress/guarded-fetch.js";
import { NodeConfigError, NodeError } from "../../../core/nodes/node-error.js";
import type { StepError } from "../../../core/runs/records/steps.js";
import { RunTreeClosed } from "../../../core/runs/start/child-runs.js";
import { RUN_TREE_CLOSED_ERROR } from "../../../core/contracts/run-flow.js";

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
