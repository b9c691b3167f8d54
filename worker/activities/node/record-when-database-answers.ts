import { Context } from "@temporalio/activity";
import { whileDatabaseUnavailable } from "../../../lib/db-outage.js";

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
