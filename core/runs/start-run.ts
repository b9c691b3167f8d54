// The one way a run starts, whoever starts it: the API (the run endpoint, hooks, retries), the
// worker (schedule fires, loop children, agents' flow.run) and anything later. pinFlow() checks
// the flow and pins its version (typed definition and plan), runFlowInput() gives the workflow
// its input; the worker's starters record the run in their own transaction and let the workflow
// start the child, the API's go through createRunStarter(), which records the run and starts its
// workflow here.
import type { Client } from "@temporalio/client";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import type { Logger } from "../../lib/logger.js";
import type { ApiMetrics } from "../../lib/operator-metrics.js";
import {
  RUN_FLOW_WORKFLOW,
  runDisplay,
  runSearchAttributes,
  type NodePlan,
  type RunFlowInput,
} from "../contracts/run-flow.js";
import { operatorMemo } from "../contracts/operator-text.js";
import { startWorkflowOrRefusal } from "../engine/temporal-start.js";
import { DomainError, FlowInactive, FlowNotFound, InvalidPlan } from "../errors.js";
import { storedDefinition, type FlowDefinition } from "../flows/definition.js";
import { buildRunPlan } from "../flows/plan.js";
import type { NodeRegistry } from "../nodes/registry.js";
import type { BlobStore } from "./blobs.js";
import { DuplicateRunKey, finalizeRunRecord, recordCheckedRunStart } from "./run-records.js";

/** A flow's version as a run pins it: the definition it runs and the plan the workflow follows. */
export interface PinnedFlow {
  id: string;
  workspaceId: string;
  name: string;
  version: number;
  definition: FlowDefinition;
  plan: Record<string, NodePlan>;
}

/** The run plan of a definition; InvalidPlan when this installation cannot run it. */
export function planOf(definition: FlowDefinition, nodes: NodeRegistry): Record<string, NodePlan> {
  try {
    return buildRunPlan(definition, nodes);
  } catch (error) {
    throw new InvalidPlan((error as Error).message);
  }
}

/**
 * The flow `flowId` of the workspace at `version` (its current one when absent), in one
 * statement on `db` (a client or a transaction). FlowNotFound when the workspace has no such flow
 * (or version), FlowInactive when `active` (the default: a new run) and the flow is not,
 * InvalidPlan when the version cannot run here.
 */
export async function pinFlow(
  db: object,
  nodes: NodeRegistry,
  target: { workspaceId: string; flowId: string; version?: number },
  { active = true }: { active?: boolean } = {},
): Promise<PinnedFlow> {
  const version = target.version ?? null;
  // The flow row holds its current version's definition; an older one is read from its version.
  const [row] = await sqlQuery<{ name: string; status: string; version: number; definition: unknown }>(
    db,
    Prisma.sql`
      SELECT f.name, f.status::text AS status, COALESCE(${version}::int, f.version) AS version,
        CASE WHEN ${version}::int IS NULL OR ${version}::int = f.version THEN f.definition
          ELSE (SELECT v.definition FROM flow_versions v WHERE v.flow_id = f.id AND v.version = ${version}::int) END
          AS definition
      FROM flows f WHERE f.id = ${target.flowId} AND f.workspace_id = ${target.workspaceId}`,
  );
  if (!row || row.definition === null) throw new FlowNotFound();
  if (active && row.status !== "active") throw new FlowInactive(row.status);
  const definition = storedDefinition(row.definition);
  return {
    id: target.flowId,
    workspaceId: target.workspaceId,
    name: row.name,
    version: row.version,
    definition,
    plan: planOf(definition, nodes),
  };
}

/** The runFlow workflow's input for a run of `flow`. */
export function runFlowInput(
  flow: PinnedFlow,
  run: { id: string; input: unknown; startedAt: Date; reuse?: RunFlowInput["reuse"] },
): RunFlowInput {
  return {
    runId: run.id,
    workspaceId: flow.workspaceId,
    flowId: flow.id,
    flowName: flow.name,
    version: flow.version,
    definition: flow.definition,
    plan: flow.plan,
    input: run.input,
    startedAt: run.startedAt.toISOString(),
    ...(run.reuse ? { reuse: run.reuse } : {}),
  };
}

/** Another request recorded a run with the same idempotency key first. */
export class DuplicateIdempotencyKey extends DomainError {
  override name = "DuplicateIdempotencyKey";
  constructor() {
    super("conflict", "idempotency_conflict", "A request with this Idempotency-Key is being processed");
  }
}

/**
 * A limit counted by the statement that records the run (so one commit), or alone for a request
 * that records none; over `max`, `refuse()` is thrown (api/http/rate-limiter.ts makes them).
 */
export interface StartQuota {
  counting: Prisma.Sql;
  max: number;
  refuse: () => Error;
  countAlone: () => Promise<void>;
}

/** A run as the API started it (or found it started, for a repeated idempotency key). */
export interface StartedRun {
  id: string;
  flowId: string;
  status: string;
  startedAt: Date;
  retryOf: string | null;
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
  { trigger, taskQueue, starter }: { trigger: string; taskQueue: string; starter?: Client },
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
  trigger: string;
  createdBy?: string;
  /** A repeat with the same key answers the run the first one started (and starts it if it never did). */
  idempotencyKey?: string;
  /** How long a key holds; afterwards it is released and starts a new run. Forever when absent. */
  idempotencyWindowMs?: number;
  quota?: StartQuota;
}

const KNOWN_FLOWS = 256;

export function createRunStarter(deps: RunStarterDeps) {
  const { prisma, clock, config } = deps;

  /**
   * Each flow's pinned version as its last run started. A version never changes, so a start that
   * finds the flow still so needs no lookup of its own: one statement checks the flow and records
   * the run. Bounded, the least recently used out.
   */
  const knownFlows = new Map<string, PinnedFlow>();
  const remember = (flow: PinnedFlow) => {
    knownFlows.delete(flow.id);
    knownFlows.set(flow.id, flow);
    if (knownFlows.size > KNOWN_FLOWS) knownFlows.delete(knownFlows.keys().next().value!);
  };

  /**
   * Starts the run's workflow (its id is the run id, and only ever one execution of it). A refusal
   * ends the run as failed and frees its key, since nothing started; an unknown outcome (Temporal
   * unreachable mid-start) leaves it running, for a repeat with its key to start it, or for the
   * reconciler to end it if its workflow never started. Either way the caller gets the error.
   */
  async function startWorkflow(run: RunFlowInput, trigger: string, { eager = true } = {}): Promise<void> {
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
  async function launch(
    flow: PinnedFlow,
    request: Omit<StartRequest, "flowId" | "workspaceId" | "idempotencyWindowMs"> & {
      retryOf?: string;
      reuse?: RunFlowInput["reuse"];
      /** Retries run the original run's version, whatever the flow's current one. */
      anyVersion?: boolean;
    },
  ): Promise<StartedRun | undefined> {
    const run = {
      id: newId("run"),
      workspaceId: flow.workspaceId,
      flowId: flow.id,
      flowName: flow.name,
      version: flow.version,
      trigger: request.trigger,
      input: request.input,
      idempotencyKey: request.idempotencyKey ?? null,
      retryOf: request.retryOf ?? null,
      createdBy: request.createdBy ?? null,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      startedAt: clock.now(),
    };
    const { quota } = request;
    let outcome;
    try {
      outcome = await recordCheckedRunStart({ prisma, clock, seal: deps.blobs.seal }, run, {
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
    await startWorkflow(runFlowInput(flow, { ...run, reuse: request.reuse }), request.trigger);
    deps.metrics?.runsStarted.inc({ trigger: request.trigger });
    return { id: run.id, flowId: flow.id, status: "running", startedAt: run.startedAt, retryOf: run.retryOf };
  }

  /** Launches a run of the flow's current version: the remembered one, else looked up and remembered. */
  async function launchCurrent(request: StartRequest): Promise<StartedRun> {
    // The quota counts the request in the first statement only.
    let attempt = request;
    const known = knownFlows.get(request.flowId);
    if (known && known.workspaceId === request.workspaceId) {
      const run = await launch(known, attempt);
      if (run) {
        remember(known);
        return run;
      }
      attempt = { ...attempt, quota: undefined };
    }
    // A flow that changes again between the lookup and the insert is looked up again.
    for (let lookups = 0; lookups < 3; lookups++) {
      const current = await pinFlow(prisma, deps.nodes, request);
      remember(current);
      const launched = await launch(current, attempt);
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
  async function ensureStarted(run: {
    id: string;
    workspaceId: string;
    flowId: string;
    version: number;
    input: unknown;
    startedAt: Date;
    trigger: string;
  }): Promise<void> {
    const flow = await pinFlow(prisma, deps.nodes, run, { active: false });
    // The input as recorded, sealed at rest: opened for the workflow (whose codec seals it again).
    await startWorkflow(runFlowInput(flow, { ...run, input: deps.blobs.seal.open(run.input) }), run.trigger, {
      eager: false,
    });
  }

  return {
    launch,

    /**
     * Starts a run of the flow's current version; with an idempotency key already used, answers
     * the run that key started (`replayed`), first starting its workflow if that run is still
     * running (the first request may have been answered 503 with its start's outcome unknown).
     */
    async start(request: StartRequest): Promise<{ run: StartedRun; replayed: boolean }> {
      // A quota is counted by the statement that records the run; a request that starts no run
      // of its own (a repeated key) is counted alone.
      const { workspaceId, idempotencyKey, idempotencyWindowMs, quota } = request;
      const replay = async () =>
        idempotencyKey
          ? prisma.run.findUnique({ where: { workspaceId_idempotencyKey: { workspaceId, idempotencyKey } } })
          : null;
      let earlier = await replay();
      if (
        earlier &&
        idempotencyWindowMs !== undefined &&
        earlier.startedAt.getTime() < clock.now().getTime() - idempotencyWindowMs
      ) {
        // The key's window has passed: it is released and this request starts a new run (a
        // concurrent one releasing it too loses the insert below and answers with the winner).
        await prisma.run.updateMany({ where: { id: earlier.id, idempotencyKey }, data: { idempotencyKey: null } });
        earlier = null;
      }
      // Counted alone: a repeat records no run of its own (one that ends up starting anew is not
      // counted again).
      const replayed = async (run: NonNullable<typeof earlier>): Promise<{ run: StartedRun; replayed: boolean }> => {
        await quota?.countAlone();
        return answerRepeat(run);
      };
      const answerRepeat = async (
        run: NonNullable<typeof earlier>,
      ): Promise<{ run: StartedRun; replayed: boolean }> => {
        if (run.flowId !== request.flowId) {
          throw new DomainError("conflict", "conflict", "This Idempotency-Key was used for a run of another flow");
        }
        if (run.status !== "running") return { run, replayed: true };
        // Marked before the start is tried, so that the reconciler, which ends a run it finds
        // never started only if no one has tried since, cannot end it under this start.
        const marked = await prisma.run.updateMany({
          where: { id: run.id, status: "running" },
          data: { startAttemptedAt: clock.now() },
        });
        if (marked.count === 0) {
          // It ended meanwhile: answer it, or, if it ended never started and freed its key, start anew.
          const now = await replay();
          return now ? answerRepeat(now) : fresh({ ...request, quota: undefined });
        }
        await ensureStarted(run);
        return { run, replayed: true };
      };
      const fresh = async (attempt: StartRequest): Promise<{ run: StartedRun; replayed: boolean }> => {
        try {
          return { run: await launchCurrent(attempt), replayed: false };
        } catch (error) {
          // A concurrent request with the same key won the race: answer with its run.
          if (error instanceof DuplicateIdempotencyKey) {
            const winner = await replay();
            if (winner) return replayed(winner);
          }
          throw error;
        }
      };
      return earlier ? replayed(earlier) : fresh(request);
    },
  };
}

export type RunStarter = ReturnType<typeof createRunStarter>;
