// What a client is told when Temporal does not start (or schedule) what it asked for. Temporal's
// client wraps the server's answer ("Failed to start Workflow"); the cause is the gRPC status
// inside, which decides between "unavailable, try again" and "refused: an operator must act".
import { isGrpcServiceError, WorkflowExecutionAlreadyStartedError, type Client } from "@temporalio/client";
import type { Logger } from "../../lib/logger.js";
import { EngineUnavailable } from "../errors.js";

/** gRPC status codes that mean Temporal could not be reached or did not answer in time. */
const UNAVAILABLE = new Map([
  [1, "CANCELLED"],
  [4, "DEADLINE_EXCEEDED"],
  [8, "RESOURCE_EXHAUSTED"],
  [14, "UNAVAILABLE"],
]);
const STATUS_NAMES: Record<number, string> = {
  2: "UNKNOWN",
  3: "INVALID_ARGUMENT",
  5: "NOT_FOUND",
  6: "ALREADY_EXISTS",
  7: "PERMISSION_DENIED",
  9: "FAILED_PRECONDITION",
  12: "UNIMPLEMENTED",
  13: "INTERNAL",
  16: "UNAUTHENTICATED",
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
 * The error for a Temporal call that failed: `temporal_unavailable` when Temporal could not be
 * reached or was overloaded (a retry may succeed), `temporal_refused` when it answered with a
 * refusal (a missing namespace or search attribute, a denied permission: an operator must act).
 * Either way the message names the cause Temporal gave, as `<what>: <STATUS>: <details>`.
 */
export function temporalRefusal(what: string, error: unknown, extra: Record<string, unknown> = {}): EngineUnavailable {
  const cause = grpcCause(error);
  const firstLine = (text: string) => text.split("\n")[0] ?? text;
  if (!cause || UNAVAILABLE.has(cause.code)) {
    const reason = cause ? `${UNAVAILABLE.get(cause.code)}: ${cause.details}` : (error as Error).message;
    return new EngineUnavailable(
      "temporal_unavailable",
      `${what}: Temporal is unavailable (${firstLine(reason)})`,
      extra,
    );
  }
  const status = STATUS_NAMES[cause.code] ?? `status ${cause.code}`;
  return new EngineUnavailable(
    "temporal_refused",
    `${what}: Temporal refused it: ${status}: ${firstLine(cause.details)}`,
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
 * refused means nothing started, unavailable that the outcome is unknown (the start may still
 * reach Temporal, or may not).
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
