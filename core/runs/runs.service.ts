import { WorkflowNotFoundError, type Client } from "@temporalio/client";
import { createJsonSeal } from "../../lib/crypto/sealed-json.js";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import type { Logger } from "../../lib/logger.js";
import type { RunEndListener } from "../../lib/run-end-notices.js";
import { isBlobRef, type RunFlowInput, type RunStatus } from "../contracts/run-flow.js";
import type { FlowDefinition } from "../flows/definition.js";
import { buildGraph, topologicalOrder } from "../flows/graph.js";
import { keyedInput } from "../flows/node-input.js";
import { handlingOf } from "../flows/plan.js";
import type { NodeRegistry } from "../nodes/registry.js";
import { createBlobStore, jsonBytes, replaceBlobRefs } from "./blobs.js";
import { finalizeRunRecord } from "./run-records.js";
import { cancelRunsBelow } from "./run-tree-cancel.js";
import { createRunStarter, pinFlow, type StartQuota } from "./start-run.js";
import { stepInputs } from "./step-inputs.js";
import type { ApiMetrics } from "../../lib/operator-metrics.js";
import type { Actor } from "../workspaces/actor.js";
import { afterTimeAndId, type TimeIdKey } from "../../lib/keyset.js";
import { RetryRaced, RunNotFound, RunNotRetryable, RunNotRunning, RunRunning } from "./run-errors.js";

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
  /** Registers the runs' search attributes on the namespace (once; see AppDeps). */
  prepareNamespace?: () => Promise<void>;
  /** See AppDeps.eagerClient. */
  eagerClient?: () => Client | undefined;
  metrics?: Pick<ApiMetrics, "runsStarted">;
}

/** Which runs a list shows; filters combine (AND). */
export interface RunFilter {
  flowId?: string;
  /** A run id or its beginning. */
  idPrefix?: string;
  status?: RunStatus;
  trigger?: string;
  /** Runs started at or after this instant. */
  startedAfter?: Date;
  /** Runs started before this instant. */
  startedBefore?: Date;
}

/**
 * A whole run id is looked up by the primary key; a beginning of one as a range of the key too: the
 * ids it begins lie between it and it followed by "g", hex digits being all that follows.
 */
const RUN_ID_LENGTH = "run_".length + 24;
const idFilter = (prefix: string | undefined) =>
  prefix === undefined
    ? {}
    : prefix.length === RUN_ID_LENGTH
      ? { id: prefix }
      : { id: { gte: prefix, lt: `${prefix}g`, startsWith: prefix } };

type RunRow = {
  id: string;
  workspaceId: string;
  flowId: string;
  flowName: string;
  version: number;
  status: "running" | "success" | "failed" | "cancelled";
  trigger: string;
  output: unknown;
  error: unknown;
  retryOf: string | null;
  parentRunId: string | null;
  startedAt: Date;
  finishedAt: Date | null;
  durationMs: number | null;
};

/** How the step log shows an output stored apart from its step (a blob reference): its size only. */
const storedOutput = (ref: { bytes: number }) => ({ truncated: true, bytes: ref.bytes });

const runSummary = (
  run: Pick<RunRow, "id" | "flowId" | "flowName" | "status" | "startedAt" | "finishedAt" | "durationMs">,
) => ({
  id: run.id,
  flow_id: run.flowId,
  flow_name: run.flowName,
  status: run.status,
  started_at: run.startedAt.toISOString(),
  finished_at: run.finishedAt?.toISOString() ?? null,
  duration_ms: run.durationMs,
});

export function createRunsService(deps: RunsServiceDeps) {
  const { prisma, clock, temporal, config } = deps;
  const seal = createJsonSeal(config.SVC_ENCRYPTION_KEY);
  const blobs = createBlobStore({ prisma, offloadBytes: config.RUN_OUTPUT_OFFLOAD_BYTES, seal });
  const starter = createRunStarter({ ...deps, blobs });

  const temporalUrl = (runId: string) =>
    config.TEMPORAL_UI_URL
      ? `${config.TEMPORAL_UI_URL}/namespaces/${encodeURIComponent(config.TEMPORAL_NAMESPACE)}/workflows/${runId}`
      : null;

  const view = (run: RunRow) => ({
    id: run.id,
    status: run.status,
    duration_ms: run.durationMs,
    output: run.output ?? null,
    flow_id: run.flowId,
    flow_name: run.flowName,
    version: run.version,
    trigger: run.trigger,
    started_at: run.startedAt.toISOString(),
    finished_at: run.finishedAt?.toISOString() ?? null,
    error: run.error ?? null,
    retry_of: run.retryOf,
    parent_run_id: run.parentRunId,
    temporal_url: temporalUrl(run.id),
  });

  /** What a step log shows of an output: the output, or a preview when it is large. */
  const stepOutput = (output: unknown) => {
    if (isBlobRef(output)) return storedOutput(output);
    if (output === null || output === undefined) return null;
    const bytes = jsonBytes(output);
    return bytes <= config.STEP_OUTPUT_MAX_BYTES
      ? output
      : { truncated: true, bytes, preview: JSON.stringify(output).slice(0, 1000) };
  };

  /** A step input as the step log shows it: stored outputs inside it as `{truncated, bytes}`, large ones previewed. */
  const stepInput = (input: unknown) => stepOutput(replaceBlobRefs(input, storedOutput));

  /** Whether a node type takes its input keyed by parent id (merge). */
  const keyedType = (type: string) => {
    const definition = deps.nodes.get(type);
    return definition ? keyedInput(handlingOf(definition)) : false;
  };

  /** A run's input, the run it retries, and the definition of the version it ran (null when that version is gone). */
  async function pinnedRun(workspaceId: string, id: string) {
    const [run] = await sqlQuery<{ input: unknown; retryOf: string | null; definition: FlowDefinition | null }>(
      prisma,
      Prisma.sql`
        SELECT r.input, r.retry_of AS "retryOf", v.definition
        FROM runs r LEFT JOIN flow_versions v ON v.flow_id = r.flow_id AND v.version = r.version
        WHERE r.id = ${id} AND r.workspace_id = ${workspaceId}`,
    );
    return run && { ...run, input: seal.open(run.input) };
  }

  /**
   * The nodes a retry takes over from the run it retries: those that succeeded there (as retry()
   * hands them to the workflow, which never runs them again).
   */
  async function carriedOver(retryOf: string | null): Promise<Set<string>> {
    if (!retryOf) return new Set();
    const rows = await prisma.runStep.findMany({
      where: { runId: retryOf, status: "success" },
      select: { nodeId: true },
      distinct: ["nodeId"],
    });
    return new Set(rows.map((row) => row.nodeId));
  }

  /** The pinned definition's nodes in the engine's order (definition order if it ever held a cycle) and edges. */
  function pinnedGraph(definition: FlowDefinition | null, carried: Set<string>, retryOf: string | null) {
    if (!definition) return { nodes: null, edges: null };
    const edges = definition.edges ?? [];
    const byId = new Map(definition.nodes.map((node) => [node.id, node]));
    let order: string[];
    try {
      order = topologicalOrder(buildGraph(definition.nodes, edges));
    } catch {
      order = [...byId.keys()];
    }
    return {
      nodes: order.map((id) => {
        const node = byId.get(id)!;
        const position = node.position as { x?: unknown; y?: unknown } | undefined;
        return {
          id,
          type: node.type,
          name: node.name ?? null,
          position:
            typeof position?.x === "number" && typeof position.y === "number" ? { x: position.x, y: position.y } : null,
          carried_over_from: carried.has(id) ? retryOf : null,
        };
      }),
      edges: edges.map((edge) => ({ from: edge.from, to: edge.to, branch: edge.branch ?? null })),
    };
  }

  async function find(workspaceId: string, id: string): Promise<RunRow> {
    // Every sync hook reads its run here: one statement past Prisma's query layer (see sqlQuery).
    const [run] = await sqlQuery<RunRow>(
      prisma,
      Prisma.sql`
        SELECT id, workspace_id AS "workspaceId", flow_id AS "flowId", flow_name AS "flowName", version,
               status::text AS status, trigger, output, error, retry_of AS "retryOf", parent_run_id AS "parentRunId",
               started_at AS "startedAt", finished_at AS "finishedAt", duration_ms AS "durationMs"
        FROM runs WHERE id = ${id} AND workspace_id = ${workspaceId}`,
    );
    if (!run) throw new RunNotFound();
    return { ...run, output: seal.open(run.output), error: seal.open(run.error) };
  }

  return {
    /** POST /api/workflows/{id}/run. With an Idempotency-Key, a repeat returns the first run. */
    async start(actor: Actor, flowId: string, input: Record<string, unknown>, idempotencyKey?: string) {
      return starter.start({
        workspaceId: actor.workspace.workspaceId,
        flowId,
        input,
        trigger: "api",
        createdBy: actor.user.id,
        idempotencyKey,
      });
    },

    /** A run started by an inbound trigger (hooks); a repeated dedupe key returns the first run. */
    async startFromTrigger(
      workspaceId: string,
      flowId: string,
      input: Record<string, unknown>,
      options: { trigger: string; idempotencyKey?: string; idempotencyWindowMs?: number; quota?: StartQuota },
    ) {
      return starter.start({ workspaceId, flowId, input, ...options });
    },

    /** A new run of the same version and input that takes over the nodes that succeeded. */
    async retry(actor: Actor, runId: string) {
      const workspaceId = actor.workspace.workspaceId;
      const original = await find(workspaceId, runId);
      if (original.status === "running" || original.status === "success") {
        throw new RunNotRetryable(original.status);
      }
      const flow = await pinFlow(prisma, deps.nodes, {
        workspaceId,
        flowId: original.flowId,
        version: original.version,
      });
      const { input } = (await pinnedRun(workspaceId, runId))!;
      const succeeded = await prisma.runStep.findMany({
        where: { runId, status: "success" },
        orderBy: { attempt: "asc" },
        select: { nodeId: true, output: true, branch: true },
      });
      const reuse: NonNullable<RunFlowInput["reuse"]> = {};
      for (const step of succeeded) {
        reuse[step.nodeId] = { output: seal.open(step.output), ...(step.branch ? { branch: step.branch } : {}) };
      }
      const run = await starter.launch(flow, {
        input: input as Record<string, unknown>,
        trigger: "retry",
        createdBy: actor.user.id,
        retryOf: runId,
        reuse,
        anyVersion: true,
      });
      if (!run) throw new RetryRaced();
      return run;
    },

    async get(workspaceId: string, id: string) {
      return view(await find(workspaceId, id));
    },

    /** The run once it has ended, or as it is when `timeoutMs` passes first: woken by its end, never polled. */
    async waitForEnd(workspaceId: string, id: string, timeoutMs: number) {
      return deps.runEnds.waitForEnd(
        id,
        timeoutMs,
        async () => view(await find(workspaceId, id)),
        (run) => run.status !== "running",
      );
    },

    /**
     * One entry per node attempt. Each carries the node's `input`, rebuilt from the run's input,
     * its pinned definition and the recorded outputs by the engine's own function (see
     * core/runs/step-inputs.ts), or null with `input_unavailable` saying why.
     */
    async steps(workspaceId: string, id: string) {
      const [run, stored] = await Promise.all([
        pinnedRun(workspaceId, id),
        prisma.runStep.findMany({
          where: { runId: id },
          orderBy: [{ startedAt: { sort: "asc", nulls: "last" } }, { nodeId: "asc" }, { attempt: "asc" }],
        }),
      ]);
      const steps = stored.map((step) => ({ ...step, output: seal.open(step.output), error: seal.open(step.error) }));
      if (!run) throw new RunNotFound();
      const carried = await carriedOver(run.retryOf);
      const inputs = stepInputs({
        definition: run.definition,
        runInput: run.input,
        steps,
        keyed: keyedType,
      });
      // Each node's input as shown, once for all its attempts.
      const shownInputs = new Map(
        [...inputs].map(([nodeId, input]) => [nodeId, input.unavailable ? null : stepInput(input.input)]),
      );
      return {
        items: steps.map((step) => {
          const input = inputs.get(step.nodeId)!;
          return {
            node_id: step.nodeId,
            type: step.type,
            status: step.status,
            attempt: step.attempt,
            branch: step.branch,
            started_at: step.startedAt?.toISOString() ?? null,
            finished_at: step.finishedAt?.toISOString() ?? null,
            duration_ms: step.durationMs,
            input: shownInputs.get(step.nodeId) ?? null,
            input_unavailable: input.unavailable,
            output: stepOutput(step.output),
            error: step.error ?? null,
            // A carried-over node never runs in the retry: its one success there is the row taken over.
            carried_over_from: step.status === "success" && carried.has(step.nodeId) ? run.retryOf : null,
          };
        }),
        ...pinnedGraph(run.definition, carried, run.retryOf),
      };
    },

    /** Newest first; filters combine (AND); `after` continues after a run a page showed (its start and id). */
    async list(workspaceId: string, query: RunFilter & { limit: number; after?: TimeIdKey }) {
      const window =
        query.startedAfter || query.startedBefore
          ? {
              startedAt: {
                ...(query.startedAfter ? { gte: query.startedAfter } : {}),
                ...(query.startedBefore ? { lt: query.startedBefore } : {}),
              },
            }
          : {};
      const rows = await prisma.run.findMany({
        where: {
          workspaceId,
          ...(query.flowId ? { flowId: query.flowId } : {}),
          ...idFilter(query.idPrefix),
          ...(query.status ? { status: query.status } : {}),
          ...(query.trigger ? { trigger: query.trigger } : {}),
          ...window,
          ...afterTimeAndId(query.after, { time: "startedAt", id: "id" }, "desc"),
        },
        orderBy: [{ startedAt: "desc" }, { id: "desc" }],
        take: query.limit,
      });
      return rows.map((run) => ({ ...runSummary(run), version: run.version, trigger: run.trigger }));
    },

    async latest(workspaceId: string, limit: number) {
      const rows = await prisma.run.findMany({
        where: { workspaceId },
        orderBy: [{ startedAt: "desc" }, { id: "desc" }],
        take: limit,
      });
      return { items: rows.map(runSummary) };
    },

    /** Cancels the run and every run below it (core/runs/run-tree-cancel.ts). */
    async cancel(workspaceId: string, id: string) {
      const run = await find(workspaceId, id);
      if (run.status !== "running") throw new RunNotRunning(`The run is ${run.status}`);
      try {
        await temporal.workflow.getHandle(id).cancel();
        const tree = await prisma.run.findUniqueOrThrow({ where: { id }, select: { rootRunId: true } });
        await cancelRunsBelow({ ...deps, blobs }, { id, workspaceId, rootRunId: tree.rootRunId });
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
        await finalizeRunRecord(
          { prisma, clock, blobs },
          {
            runId: id,
            status: "failed",
            error: { message: "The run's workflow was never started" },
            skipped: [],
            reused: [],
          },
        );
        throw new RunNotRunning("The run's workflow does not exist; the run was marked failed");
      }
      return { run_id: id, status: "cancelling" as const };
    },

    async remove(workspaceId: string, id: string) {
      const run = await find(workspaceId, id);
      if (run.status === "running") {
        throw new RunRunning();
      }
      await prisma.$transaction([
        prisma.logEntry.deleteMany({ where: { runId: id, workspaceId } }),
        prisma.run.deleteMany({ where: { id, workspaceId } }),
      ]);
    },
  };
}

export type RunsService = ReturnType<typeof createRunsService>;
