// The API's starts of a run of its own tree: recording the run (with run.started, in the one
// statement that checks its flow and counts its quota) and starting its workflow. A start that
// finds its flow changed since it was pinned pins it again.
import type { Client } from "@temporalio/client";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import type { PrismaClient } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import type { Logger } from "../../lib/logger.js";
import type { ApiMetrics } from "../../lib/operator-metrics.js";
import type { Quota } from "../../lib/quota.js";
import {
  RUN_FLOW_WORKFLOW,
  runDisplay,
  runSearchAttributes,
  type RunFlowInput,
  type RunStatus,
  type RunTrigger,
} from "../contracts/run-flow.js";
import { operatorMemo } from "../contracts/operator-text.js";
import { startWorkflowOrRefusal } from "../engine/temporal-start.js";
import { DomainError, FlowInactive, FlowNotFound } from "../errors.js";
import type { NodeRegistry } from "../nodes/registry.js";
import type { BlobStore } from "./blobs.js";
import { pinFlow, runFlowInput, type PinnedFlow } from "./pinned-flow.js";
import { DuplicateRunKey, finalizeRunRecord, recordCheckedRunStart } from "./run-records.js";

export interface RunStarterDeps {
  prisma: PrismaClient;
  clock: Clock;
  temporal: Client;
  nodes: NodeRegistry;
  blobs: BlobStore;
  logger: Logger;
  config: Pick<Config, "TEMPORAL_TASK_QUEUE">;
  /** Registers the runs' search attributes on the namespace (once; see AppDeps). */
  prepareNamespace?: () => Promise<void>;
  /** With a worker in this process: the client whose starts bring the first workflow task back. */
  eagerClient?: () => Client | undefined;
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
  reuse?: RunFlowInput["reuse"];
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
}

/** Another request recorded a run with the same idempotency key first. */
export class DuplicateIdempotencyKey extends DomainError {
  override name = "DuplicateIdempotencyKey";
  constructor() {
    super("conflict", "idempotency_conflict", "A request with this Idempotency-Key is being processed");
  }
}

/**
 * A used idempotency key repeated with another request (another method, path or body): nothing of
 * the run it started is answered, not even its id.
 */
export class IdempotencyKeyReused extends DomainError {
  override name = "IdempotencyKeyReused";
  constructor() {
    super(
      "conflict",
      "idempotency_key_reused",
      "This idempotency key was used for another request (another method, path or body): use a new key for a new request",
    );
  }
}

const KNOWN_FLOWS = 256;

/**
 * Each flow's pinned version as its last run started. A version never changes, so a start that
 * finds the flow still so needs no lookup of its own: one statement checks the flow and records
 * the run. Bounded, the least recently used out.
 */
export class KnownFlows {
  readonly #flows = new Map<string, PinnedFlow>();

  get(flowId: string): PinnedFlow | undefined {
    return this.#flows.get(flowId);
  }

  remember(flow: PinnedFlow): void {
    this.#flows.delete(flow.id);
    this.#flows.set(flow.id, flow);
    if (this.#flows.size > KNOWN_FLOWS) this.#flows.delete(this.#flows.keys().next().value!);
  }
}

/**
 * Starts the workflow of a run already recorded (its id is the run id, and only ever one
 * execution of it: a start that reaches Temporal twice, a late first try and a repeat, runs it
 * once). Undefined when it runs; otherwise the error, refused (nothing started) or unavailable
 * (the outcome is unknown), logged.
 */
export function startRunWorkflow(
  deps: Pick<RunStarterDeps, "temporal" | "prepareNamespace"> & { logger: Pick<Logger, "error"> },
  run: RunFlowInput,
  { trigger, taskQueue, starter }: { trigger: RunTrigger; taskQueue: string; starter?: Client },
) {
  return startWorkflowOrRefusal({
    temporal: deps.temporal,
    starter,
    prepareNamespace: deps.prepareNamespace,
    workflowId: run.runId,
    start: (client) =>
      client.workflow.start(RUN_FLOW_WORKFLOW, {
        workflowId: run.runId,
        workflowIdReusePolicy: "REJECT_DUPLICATE",
        taskQueue,
        args: [run],
        typedSearchAttributes: runSearchAttributes(run.workspaceId, run.flowId),
        memo: operatorMemo({ flow_name: run.flowName, version: run.version }),
        ...runDisplay({ ...run, trigger }),
        // With a worker in this process, the run's first workflow task comes back with the start.
        ...(starter ? { requestEagerStart: true } : {}),
      }),
    what: "The run could not be started",
    extra: { run_id: run.runId },
    logger: deps.logger,
  });
}

/**
 * Starts the run's workflow (its id is the run id, and only ever one execution of it). A refusal
 * ends the run as failed and frees its key, since nothing started; an unknown outcome (Temporal
 * unreachable mid-start) leaves it running, for a repeat with its key to start it, or for the
 * reconciler to end it if its workflow never started. Either way the caller gets the error.
 */
export async function startWorkflow(
  deps: RunStarterDeps,
  run: RunFlowInput,
  trigger: RunTrigger,
  { eager = true } = {},
): Promise<void> {
  const { prisma, clock, config } = deps;
  const error = await startRunWorkflow(deps, run, {
    trigger,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    starter: eager ? deps.eagerClient?.() : undefined,
  });
  if (!error) return;
  if (error.refused) {
    await finalizeRunRecord(
      { prisma, clock, blobs: deps.blobs },
      { runId: run.runId, status: "failed", error: { message: error.message }, skipped: [], reused: [] },
      { releaseKey: true },
    );
  } else {
    // The client is told to repeat in a few seconds: the reconciler counts its patience from
    // this answer, not from the record (a start that waits out an outage takes 10 to 20 s).
    await prisma.run
      .updateMany({ where: { id: run.runId, status: "running" }, data: { startAttemptedAt: clock.now() } })
      .catch((err: unknown) =>
        deps.logger.warn({ err, run_id: run.runId }, "could not note the start's unknown outcome"),
      );
  }
  throw error;
}

/**
 * Records the run (with run.started, in one statement, so one commit) if its flow is active,
 * still named so and (unless `anyVersion`) still at that version, and starts its workflow.
 * Undefined when the flow has changed since it was pinned.
 */
export async function launch(
  deps: RunStarterDeps,
  flow: PinnedFlow,
  request: LaunchRequest,
): Promise<StartedRun | undefined> {
  const { clock, config } = deps;
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
    createdBy: request.createdBy ?? null,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    startedAt: clock.now(),
  };
  const { quota } = request;
  let outcome;
  try {
    outcome = await recordCheckedRunStart({ prisma: deps.prisma, clock, seal: deps.blobs.seal }, run, {
      anyVersion: request.anyVersion,
      quota,
      reuse: request.reuse,
    });
  } catch (error) {
    if (error instanceof DuplicateRunKey) throw new DuplicateIdempotencyKey();
    throw error;
  }
  if (!outcome) throw new FlowNotFound();
  if (outcome.status !== "active") throw new FlowInactive(outcome.status);
  if (quota && outcome.count > quota.max) throw quota.refuse();
  if (!outcome.created) return undefined;
  await startWorkflow(deps, runFlowInput(flow, { ...run, reuse: request.reuse }), request.trigger);
  deps.metrics?.runsStarted.inc({ trigger: request.trigger });
  return { id: run.id, flowId: flow.id, status: "running", startedAt: run.startedAt, retryOf: run.retryOf };
}

/** Launches a run of the flow's current version: the remembered one, else looked up and remembered. */
export async function launchCurrent(
  deps: RunStarterDeps,
  knownFlows: KnownFlows,
  request: StartRequest,
): Promise<StartedRun> {
  // The quota counts the request in the first statement only.
  let attempt = request;
  const known = knownFlows.get(request.flowId);
  if (known && known.workspaceId === request.workspaceId) {
    const run = await launch(deps, known, attempt);
    if (run) {
      knownFlows.remember(known);
      return run;
    }
    attempt = { ...attempt, quota: undefined };
  }
  // A flow that changes again between the lookup and the insert is looked up again.
  for (let lookups = 0; lookups < 3; lookups++) {
    const current = await pinFlow(deps.prisma, deps.nodes, request);
    knownFlows.remember(current);
    const launched = await launch(deps, current, attempt);
    if (launched) return launched;
    attempt = { ...attempt, quota: undefined };
  }
  throw new DomainError("conflict", "conflict", "The flow kept changing while the run started: try again");
}

/**
 * Starts the workflow of a run recorded earlier that may never have started (its start failed
 * with an unknown outcome, or the process died between the record and the start). A workflow
 * already started counts as started.
 */
export async function ensureStarted(
  deps: RunStarterDeps,
  run: {
    id: string;
    workspaceId: string;
    flowId: string;
    version: number;
    input: unknown;
    startedAt: Date;
    trigger: RunTrigger;
  },
): Promise<void> {
  const flow = await pinFlow(deps.prisma, deps.nodes, run, { active: false });
  // The input as recorded, sealed at rest: opened for the workflow (whose codec seals it again).
  await startWorkflow(deps, runFlowInput(flow, { ...run, input: deps.blobs.seal.open(run.input) }), run.trigger, {
    eager: false,
  });
}
