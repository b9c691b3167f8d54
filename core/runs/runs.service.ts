// The runs of a workspace as the API and the CLI use them: starting (start/run-starter.ts),
// reading (reads/), watching for the end, the step log, rerunning and retrying, cancelling and deleting
// (cancel/). This file only wires: each behaviour is a function in a file of the room's job.
import { recordAudit, type AuditContext, type AuditSource } from "../audit/audit-log.js";
import type { Client } from "@temporalio/client";
import { createJsonSeal } from "../../lib/crypto/sealed-json.js";
import { newId } from "../../lib/ids.js";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import type { PrismaClient } from "../../lib/db.js";
import type { TimeIdKey } from "../../lib/keyset.js";
import type { Logger } from "../../lib/logger.js";
import type { ApiMetrics } from "../../lib/operator-metrics.js";
import type { RunEndListener } from "../../lib/run-end-notices.js";
import type { NodeRegistry } from "../nodes/registry.js";
import { actorId, type Actor } from "../workspaces/actor.js";
import { createBlobStore } from "./records/blobs.js";
import { cancelRun, removeRun } from "./cancel/cancel-run.js";
import { rerunKeyed, retryRun, type RerunRequest } from "./start/rerun-run.js";
import { startTestRun, type TestRunRequest } from "./start/test-run.js";
import type { CredentialsService } from "../credentials/credentials.service.js";
import { latestRuns, listRuns, type RunFilter } from "./reads/run-lists.js";
import { openRunRow } from "./records/run-records.js";
import { findRun, handedRunRow } from "./reads/run-reads.js";
import { runStepLog, shownOutput } from "./reads/run-step-log.js";
import { itemsPage, itemsProgress } from "./reads/run-items.js";
import { runView } from "./reads/run-views.js";
import { runQueue, runQueues } from "./reads/run-queue.js";
import { cachedFlowQueue, flowQueue } from "./reads/flow-queue.js";
import { failureGroups } from "./reads/run-failures.js";
import type { Quota } from "../../lib/quota.js";
import { createRunStarter } from "./start/run-starter.js";
import type { StartAnswer } from "./start/run-starter.js";
import { runHasEnded, type RunTrigger } from "../contracts/run-flow.js";

export type { RunFilter } from "./reads/run-lists.js";

export interface RunsServiceDeps {
  prisma: PrismaClient;
  clock: Clock;
  temporal: Client;
  nodes: NodeRegistry;
  logger: Logger;
  config: Pick<
    Config,
    | "TEMPORAL_TASK_QUEUE"
    | "TEMPORAL_NAMESPACE"
    | "TEMPORAL_UI_URL"
    | "RUN_OUTPUT_OFFLOAD_BYTES"
    | "STEP_OUTPUT_MAX_BYTES"
    | "SVC_ENCRYPTION_KEY"
  >;
  runEnds: RunEndListener;
  /** Checks a test run's draft's credentials as a save does (test runs refuse a draft without it). */
  credentials?: Pick<CredentialsService, "checkReferences">;
  /** Registers the runs' search attributes on the namespace (once; see AppDeps). */
  prepareNamespace?: () => Promise<void>;
  /** See AppDeps.eagerClient. */
  eagerClient?: () => Client | undefined;
  metrics?: Pick<ApiMetrics, "runsStarted">;
}

/**
 * How a trigger starts a run: which trigger, its dedupe key (with the fingerprint of the request
 * that gives it) and window, the quota it counts against.
 */
export interface TriggerStartOptions {
  trigger: RunTrigger;
  idempotencyKey?: string;
  requestFingerprint?: string;
  idempotencyWindowMs?: number;
  quota?: Quota;
  /** Who the run is attributed to (actorId: an MCP call's token), when someone asked for it. */
  createdBy?: string;
}

/** Who reruns, as a rerun records it. */
const callerOf = (actor: Actor) => ({ workspaceId: actor.workspace.workspaceId, by: actorId(actor) });

/** The parts every piece of the runs service shares: the seal, the blob store and the starter. */
function runsParts(deps: RunsServiceDeps) {
  const seal = createJsonSeal(deps.config.SVC_ENCRYPTION_KEY);
  const blobs = createBlobStore({ prisma: deps.prisma, offloadBytes: deps.config.RUN_OUTPUT_OFFLOAD_BYTES, seal });
  const starter = createRunStarter({ ...deps, blobs });
  return { ...deps, seal, blobs, starter };
}
type RunsParts = ReturnType<typeof runsParts>;

export function createRunsService(deps: RunsServiceDeps) {
  const parts = runsParts(deps);
  return {
    ...runStarts(parts),
    ...triggerStarts(parts),
    ...runReads(parts),
    cancel: (workspaceId: string, id: string, audit?: AuditContext) => cancelRun(parts, workspaceId, id, audit),
    remove: (workspaceId: string, id: string, audit?: AuditContext) => removeRun(parts, workspaceId, id, audit),
  };
}

/** A run's view as the API shows it. */
const readRun = async (parts: RunsParts, workspaceId: string, id: string) =>
  runView(parts.config, await findRun(parts, workspaceId, id));

/** Starts by members and tokens: the API's run start, retries, reruns and test runs. */
function runStarts(parts: RunsParts) {
  const { starter } = parts;
  return {
    /**
     * POST /api/workflows/{id}/run. With an Idempotency-Key, a repeat of the same request (its
     * fingerprint) returns the first run; another request with the key is refused.
     */
    async start(
      actor: Actor,
      flowId: string,
      input: Record<string, unknown>,
      idempotency?: { key: string; requestFingerprint: string },
    ) {
      return starter.start({
        workspaceId: actor.workspace.workspaceId,
        flowId,
        input,
        trigger: "api",
        createdBy: actorId(actor),
        idempotencyKey: idempotency?.key,
        requestFingerprint: idempotency?.requestFingerprint,
      });
    },

    /** A retry is a rerun from the failed node: written as run.rerun, marked from_failed. */
    async retry(actor: Actor, runId: string, source: AuditSource = {}) {
      const run = await retryRun(parts, callerOf(actor), runId);
      await recordAudit(
        parts.prisma,
        parts.clock,
        { actor, source },
        { action: "run.rerun", object: { kind: "run", id: run.id }, details: { rerun_of: runId, from_failed: true } },
      );
      return run;
    },
    /** A rerun; a new one (not an Idempotency-Key's repeat) writes its audit row once started. */
    async rerun(
      actor: Actor,
      runId: string,
      request: RerunRequest,
      idempotency?: { key: string; requestFingerprint: string },
      source: AuditSource = {},
    ) {
      const result = await rerunKeyed(parts, callerOf(actor), runId, request, idempotency);
      if (!result.replayed)
        await recordAudit(
          parts.prisma,
          parts.clock,
          { actor, source },
          {
            action: "run.rerun",
            object: { kind: "run", id: result.run.id },
            details: { rerun_of: runId, version: result.run.version },
          },
        );
      return result;
    },
    /** POST /api/flows/{id}/test-runs: a test run of a draft (start/test-run.ts). */
    test: (actor: Actor, request: TestRunRequest) => {
      const credentials = parts.credentials ?? {
        checkReferences: () => Promise.reject(new Error("test runs need the credentials service")),
      };
      return startTestRun({ ...parts, credentials }, callerOf(actor), request);
    },
  };
}

/** Starts by inbound triggers (hooks), a sync hook's waiting for the run's end included. */
function triggerStarts(parts: RunsParts) {
  const { config, seal, starter } = parts;
  /** Reads the run, or takes the record its end wrote when this process ended it. */
  const readEnd = (workspaceId: string, id: string) => async (handed?: unknown) => {
    const ended = handedRunRow(handed, workspaceId, id);
    return ended ? runView(config, openRunRow(seal, ended)) : readRun(parts, workspaceId, id);
  };
  const hasEnded = (run: { status: string }) => runHasEnded(run.status);
  /** The run once it has ended, or as it is when `timeoutMs` passes first: woken by its end, never polled. */
  const waitForEnd = async (workspaceId: string, id: string, timeoutMs: number, signal?: AbortSignal) => {
    const watch = await parts.runEnds.watch(id);
    try {
      return await watch.until(timeoutMs, readEnd(workspaceId, id), hasEnded, { signal });
    } finally {
      watch.close();
    }
  };

  return {
    /** A run started by an inbound trigger (hooks); a repeated dedupe key returns the first run. */
    async startFromTrigger(
      workspaceId: string,
      flowId: string,
      input: Record<string, unknown>,
      options: TriggerStartOptions,
    ) {
      return starter.start({ workspaceId, flowId, input, ...options });
    },

    /**
     * startFromTrigger, then the run once it has ended, or as it is when `timeoutMs` passes first
     * (a sync hook). Its end is watched from before it starts, so its record is read once, at its
     * end, and not at all when this process ended it (the API's in-process worker hands it over).
     */
    async startFromTriggerAndWait(
      workspaceId: string,
      flowId: string,
      input: Record<string, unknown>,
      options: TriggerStartOptions,
      timeoutMs: number,
      {
        runId = newId("run"),
        onStarted,
        signal,
      }: {
        runId?: string;
        onStarted?: (answer: StartAnswer) => void;
        /** Stops the wait (the caller is gone): the answer is then the run's last read. */
        signal?: AbortSignal;
      } = {},
    ) {
      const watch = await parts.runEnds.watch(runId);
      try {
        const answer = await starter.start({ workspaceId, flowId, input, ...options, runId });
        onStarted?.(answer);
        // A repeated dedupe key answers an earlier run, which may have ended long ago: read at once.
        const last =
          answer.run.id === runId
            ? await watch.until(timeoutMs, readEnd(workspaceId, runId), hasEnded, { fresh: true, signal })
            : await waitForEnd(workspaceId, answer.run.id, timeoutMs, signal);
        return { ...answer, last };
      } finally {
        watch.close();
      }
    },
  };
}

/** Reads: a run, its steps and items, lists and the flow's failures. */
function runReads(parts: RunsParts) {
  const { prisma, config, seal } = parts;
  const queue = cachedFlowQueue((workspaceId, flowId) => flowQueue(parts, workspaceId, flowId), parts.clock);
  return {
    /** The run; one waiting at its gate shows `queued` and its place (reads/run-queue.ts). */
    async get(workspaceId: string, id: string) {
      const run = await findRun(parts, workspaceId, id);
      const queue = await runQueue(parts, run);
      return { ...runView(config, run), ...(queue ? { status: "queued" as const, queue } : { queue: null }) };
    },
    /** Where those of the runs `ids` that wait do, by run id: one query per gate (reads/run-queue.ts). */
    queues: (workspaceId: string, ids: string[]) => runQueues(parts, workspaceId, ids),
    /** The flow's failed runs grouped by failed node and error (reads/run-failures.ts). */
    failures: (workspaceId: string, flowId: string, since?: Date) => failureGroups(parts, workspaceId, flowId, since),

    steps: (workspaceId: string, id: string) => runStepLog(parts, workspaceId, id),
    /** The progress of the run's per-item nodes (GET /api/runs/{id}/items). */
    async itemsProgress(workspaceId: string, id: string) {
      await findRun(parts, workspaceId, id);
      return itemsProgress(prisma, id);
    },
    /** A page of one node's items (GET /api/runs/{id}/items/{node_id}), large results previewed as steps' outputs are. */
    async items(
      workspaceId: string,
      id: string,
      nodeId: string,
      query: { afterIndex?: number; limit: number; status?: "success" | "failed" },
    ) {
      await findRun(parts, workspaceId, id);
      const shown = (value: unknown) => shownOutput(config.STEP_OUTPUT_MAX_BYTES, value);
      return itemsPage(parts, id, nodeId, { ...query, shown });
    },
    list: (workspaceId: string, query: RunFilter & { limit: number; after?: TimeIdKey }) =>
      listRuns({ prisma, seal }, workspaceId, query),
    latest: (workspaceId: string, limit: number) => latestRuns(prisma, workspaceId, limit),
    /** The flow's runs waiting at its gates, per key, read at most every 2 s per flow (reads/flow-queue.ts). */
    queue,
  };
}

export type RunsService = ReturnType<typeof createRunsService>;
