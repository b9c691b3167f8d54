// What a client is told when Temporal does not start (or schedule) what it asked for. Temporal's
// client wraps the server's answer ("Failed to start Workflow"); the cause is the gRPC status
// inside, which decides between "unavailable, try again" and "refused: an operator must act".
import { isGrpcServiceError, WorkflowExecutionAlreadyStartedError, type Client } from "@temporalio/client";
import type { Logger } from "../../lib/logger.js";
import { EngineUnavailable } from "../errors.js";

/**
 * gRPC status codes that are Temporal's definite refusal: it looked at the request and did not
 * carry it out. Any other status leaves the outcome unknown: CANCELLED, DEADLINE_EXCEEDED and
 * UNAVAILABLE (not reached, or no answer in time), RESOURCE_EXHAUSTED, ABORTED, and UNKNOWN and
 * INTERNAL, which is what a connection reset mid-call gives (`UNKNOWN: transport error` from the
 * worker's native client): the request may have been carried out all the same.
 */
const REFUSALS = new Map([
  [3, "INVALID_ARGUMENT"],
  [5, "NOT_FOUND"],
  [6, "ALREADY_EXISTS"],
  [7, "PERMISSION_DENIED"],
  [9, "FAILED_PRECONDITION"],
  [11, "OUT_OF_RANGE"],
  [12, "UNIMPLEMENTED"],
  [16, "UNAUTHENTICATED"],
]);
const OTHER_STATUS_NAMES: Record<number, string> = {
  1: "CANCELLED",
  2: "UNKNOWN",
  4: "DEADLINE_EXCEEDED",
  8: "RESOURCE_EXHAUSTED",
  10: "ABORTED",
  13: "INTERNAL",
  14: "UNAVAILABLE",
  15: "DATA_LOSS",
};

/** The innermost gRPC error of a Temporal client error, if there is one. */
function grpcCause(error: unknown): { code: number; details: string } | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (isGrpcServiceError(current)) return { code: current.code, details: current.details || current.message };
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The error for a Temporal call that failed: `temporal_refused` only when Temporal answered with
 * a definite refusal (a missing namespace or search attribute, a denied permission: an operator
 * must act, and nothing was done); otherwise `temporal_unavailable`: Temporal could not be
 * reached, was overloaded, or the call's outcome is unknown (a retry may succeed, and what was
 * asked may have been done). Either way the message names the cause Temporal gave, as
 * `<what>: <STATUS>: <details>`.
 */
export function temporalRefusal(what: string, error: unknown, extra: Record<string, unknown> = {}): EngineUnavailable {
  const cause = grpcCause(error);
  const firstLine = (text: string) => text.split("\n")[0] ?? text;
  if (!cause || !REFUSALS.has(cause.code)) {
    const status = cause ? (OTHER_STATUS_NAMES[cause.code] ?? `status ${cause.code}`) : undefined;
    const reason = cause ? `${status}: ${cause.details}` : (error as Error).message;
    return new EngineUnavailable(
      "temporal_unavailable",
      `${what}: Temporal is unavailable (${firstLine(reason)})`,
      extra,
    );
  }
  return new EngineUnavailable(
    "temporal_refused",
    `${what}: Temporal refused it: ${REFUSALS.get(cause.code)}: ${firstLine(cause.details)}`,
    extra,
  );
}

const START_DEADLINE_MS = 10_000;
/** How long the check whether a failed start reached Temporal after all may take. */
const CHECK_DEADLINE_MS = 3_000;

/**
 * Starts a workflow for a request, bounded: the namespace's search attributes first, then the
 * start on `starter` (the eager client when this process runs a worker). A start that fails may
 * have reached Temporal all the same: `temporal` is asked (bounded too). Undefined when the
 * workflow runs (a workflow already started under that id counts); otherwise the error, logged:
 * refused means Temporal definitely started nothing, unavailable that the outcome is unknown (the
 * start may have reached Temporal, or may still; a describe that fails or finds nothing does not
 * settle it): the caller leaves that to a repeat or the reconciler, never ends the run failed.
 */
export async function startWorkflowOrRefusal(args: {
  temporal: Client;
  starter?: Client;
  prepareNamespace?: () => Promise<void>;
  workflowId: string;
  start: (client: Client) => Promise<unknown>;
  /** What did not happen, for the message: "The run could not be started". */
  what: string;
  /** Fields of the answer and the log line, e.g. { run_id }. */
  extra: Record<string, unknown>;
  logger: Pick<Logger, "error">;
}): Promise<EngineUnavailable | undefined> {
  const starter = args.starter ?? args.temporal;
  let prepared = false;
  try {
    await args.prepareNamespace?.();
    prepared = true;
    await starter.connection.withDeadline(Date.now() + START_DEADLINE_MS, () => args.start(starter));
    return undefined;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return undefined;
    // Nothing was sent when the namespace could not be prepared.
    const started =
      prepared &&
      (await args.temporal.connection
        .withDeadline(Date.now() + CHECK_DEADLINE_MS, () =>
          args.temporal.workflow.getHandle(args.workflowId).describe(),
        )
        .then(
          () => true,
          () => false,
        ));
    if (started) return undefined;
    const refusal = temporalRefusal(args.what, error, args.extra);
    args.logger.error({ ...args.extra, err: error, code: refusal.code }, refusal.message);
    return refusal;
  }
}
