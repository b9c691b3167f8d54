// A run the API starts, once its flow is pinned: recorded with run.started (in the one statement
// that checks its flow and counts its quota), then its workflow started (workflow-start.ts).
import { newId } from "../../../lib/ids.js";
import type { ApiMetrics } from "../../../lib/operator-metrics.js";
import type { Quota } from "../../../lib/quota.js";
import type { RunFlowInput, RunStatus, RunTrigger } from "../../contracts/run-flow.js";
import { FlowInactive, FlowNotFound } from "../../errors.js";
import type { NodeRegistry } from "../../nodes/registry.js";
import { requiredPriority } from "../../flows/priority-template.js";
import { recordCheckedRunStart, type CheckedRunStart } from "../records/run-records.js";
import type { PinnedFlow } from "./pinned-flow.js";
import { startSlotAsk, startWorkflow, type WorkflowStartDeps } from "./workflow-start.js";

export interface RunStarterDeps extends WorkflowStartDeps {
  nodes: NodeRegistry;
  metrics?: Pick<ApiMetrics, "runsStarted">;
}

export interface StartRequest {
  workspaceId: string;
  flowId: string;
  input: Record<string, unknown>;
  trigger: RunTrigger;
  createdBy?: string;
  /**
   * A repeat with the same key answers the run the first one started (and starts it if it never
   * did), when it is the same request: its `requestFingerprint` is the one recorded with the run.
   */
  idempotencyKey?: string;
  /** The request that used the key (lib/request-fingerprint.ts); a key without one never replays a run. */
  requestFingerprint?: string;
  /** How long a key holds; afterwards it is released and starts a new run. Forever when absent. */
  idempotencyWindowMs?: number;
  quota?: Quota;
  /** The new run's id, chosen by the caller (to watch for its end before it starts); a new one when absent. */
  runId?: string;
}

export type LaunchRequest = Omit<StartRequest, "flowId" | "workspaceId" | "idempotencyWindowMs"> & {
  retryOf?: string;
  /** A rerun (or retry): what it reruns and how, recorded with it (core/runs/rerun/). */
  rerun?: CheckedRunStart["rerun"];
  reuse?: RunFlowInput["reuse"];
  /** A replay's nodes that reach outside, given the recorded outputs (RunFlowInput.given). */
  given?: RunFlowInput["given"];
  /** A run that opened a debounce window waits for it to close (debounce.ts). */
  debounce?: RunFlowInput["debounce"];
  /** A test run (a replay, a draft's test run): no run events, no quota, no runs-started count. */
  test?: boolean;
  /** The flow may be inactive (a draft's test run); never archived. */
  inactiveToo?: boolean;
  /** Retries run the original run's version, whatever the flow's current one. */
  anyVersion?: boolean;
};

/** A run as the API started it (or found it started, for a repeated idempotency key). */
export interface StartedRun {
  id: string;
  flowId: string;
  status: RunStatus;
  startedAt: Date;
  retryOf: string | null;
  /** The run it reruns (a rerun or a retry). */
  rerunOf: string | null;
}

/**
 * Records the run (with run.started, in one statement, so one commit) if its flow is active,
 * still named so and (unless `anyVersion`) still at that version, and starts its workflow.
 * Undefined when the flow has changed since it was pinned. DuplicateRunKey when another request
 * recorded a run with the same idempotency key first.
 */
export async function launch(
  deps: RunStarterDeps,
  flow: PinnedFlow,
  request: LaunchRequest,
): Promise<StartedRun | undefined> {
  const { clock, config, quota } = { ...deps, quota: request.quota };
  // Refused (400 naming definition.priority) before anything is recorded, as a debounce key is.
  const priority = requiredPriority(flow.definition, request.input);
  const run = {
    id: request.runId ?? newId("run"),
    workspaceId: flow.workspaceId,
    flowId: flow.id,
    flowName: flow.name,
    version: flow.version,
    trigger: request.trigger,
    input: request.input,
    idempotencyKey: request.idempotencyKey ?? null,
    requestFingerprint: request.idempotencyKey ? (request.requestFingerprint ?? null) : null,
    retryOf: request.retryOf ?? null,
    rerun: request.rerun,
    test: request.test,
    createdBy: request.createdBy ?? null,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    startedAt: clock.now(),
  };
  const outcome = await recordCheckedRunStart({ prisma: deps.prisma, clock, seal: deps.blobs.seal }, run, {
    anyVersion: request.anyVersion,
    inactiveToo: request.inactiveToo,
    quota,
    // Given outputs stored elsewhere are copied as carried ones are (their references changed in place).
    reuse: request.given ? { ...request.reuse, ...givenRecorded(request.given) } : request.reuse,
    // A free concurrency slot is taken with the record (a debounced run asks once its window closed).
    slot: request.debounce
      ? undefined
      : startSlotAsk({ runId: run.id, flowId: flow.id, definition: flow.definition, input: request.input }),
  });
  if (!outcome) throw new FlowNotFound();
  const runs = outcome.status === "active" || (request.inactiveToo && outcome.status === "inactive");
  if (!runs) throw new FlowInactive(outcome.status);
  if (quota && outcome.count > quota.max) throw quota.refuse();
  if (!outcome.created) return undefined;
  await startWorkflow(
    deps,
    flow,
    { ...run, reuse: request.reuse, given: request.given, debounce: request.debounce, priority },
    { trigger: request.trigger, slotTaken: outcome.took ?? undefined },
  );
  if (!request.test) deps.metrics?.runsStarted.inc({ trigger: request.trigger });
  return {
    id: run.id,
    flowId: flow.id,
    status: "running",
    startedAt: run.startedAt,
    retryOf: run.retryOf,
    rerunOf: run.rerun?.of ?? null,
  };
}

/** The given nodes that have a recorded output. */
function givenRecorded(given: NonNullable<RunFlowInput["given"]>): Record<string, { output: unknown }> {
  return Object.fromEntries(
    Object.entries(given).flatMap(([id, entry]) => ("output" in entry ? [[id, entry as { output: unknown }]] : [])),
  );
}
