// The outbox dispatcher: reads the event outbox, records one delivery per (event, subscribed
// enabled endpoint) and, for a run.failed whose flow names an error flow, that flow's run
// (core/runs/start/error-flows.ts); starts their workflows, and only then marks the events dispatched.
// A crash anywhere leaves the events undispatched; the next pass makes the same delivery and run
// ids, so nothing is lost and nothing is sent or run twice.
import type { Client } from "@temporalio/client";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import { Prisma, type PrismaClient } from "../../lib/db.js";
import type { EventPayload } from "../../lib/events.js";
import type { Logger } from "../../lib/logger.js";
import { runPeriodically } from "../../lib/periodic.js";
import { deliveryIdFor } from "../../core/contracts/deliver-webhook.js";
import { deliveryBody } from "../../core/webhooks/delivery-body.js";
import { startDeliveryWorkflow } from "../../core/webhooks/delivery-start.js";
import type { NodeRegistry } from "../../core/nodes/registry.js";
import { recordErrorFlowRuns, ERROR_FLOW_TRIGGER, type ErrorFlowStart } from "../../core/runs/start/error-flows.js";
import { createBlobStore } from "../../core/runs/records/blobs.js";
import type { JsonSeal } from "../../lib/crypto/sealed-json.js";
import { finalizeRunRecord } from "../../core/runs/records/run-ends.js";
import { startRunWorkflow } from "../../core/runs/start/workflow-start.js";

export interface DispatcherDeps {
  prisma: PrismaClient;
  clock: Clock;
  temporal: Client;
  config: Pick<
    Config,
    "TEMPORAL_TASK_QUEUE" | "WEBHOOK_RETRY_DELAYS" | "WEBHOOK_TIMEOUT" | "RUN_TREE_MAX_DEPTH" | "RUN_TREE_MAX_RUNS"
  >;
  /** How run payloads are stored (the failed runs' errors error flows read, their runs' inputs). */
  seal: JsonSeal;
  /** The node types, to plan error flows' runs; without them no error flow is started. */
  nodes?: NodeRegistry;
  logger?: Logger;
}

interface OutboxRow {
  id: string;
  workspace_id: string;
  type: string;
  payload: EventPayload;
}

/**
 * One pass over at most `limit` undispatched events (of one workspace with `workspaceId`: a
 * test's own); returns how many it dispatched.
 */
export async function dispatchEvents(
  deps: DispatcherDeps,
  { limit = 100, workspaceId }: { limit?: number; workspaceId?: string } = {},
): Promise<number> {
  const { prisma, clock, temporal, config } = deps;
  const now = clock.now();
  // 1. The deliveries are committed before any workflow starts, so an attempt always finds its row.
  const nodes = deps.nodes;
  const { eventIds, deliveryIds, errorRuns } = await prisma.$transaction(
    async (tx) => {
      const events = await tx.$queryRaw<OutboxRow[]>`
        SELECT id, workspace_id, type, payload FROM events
        WHERE dispatched_at IS NULL${workspaceId ? Prisma.sql` AND workspace_id = ${workspaceId}` : Prisma.empty}
        ORDER BY created_at
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED`;
      if (events.length === 0) return { eventIds: [], deliveryIds: [], errorRuns: [] as ErrorFlowStart[] };
      const failedRunIds = events
        .filter((event) => event.type === "run.failed" && event.payload.data.status === "failed")
        .map((event) => String(event.payload.data.run_id));
      const errorRuns = nodes
        ? await recordErrorFlowRuns(
            tx,
            {
              clock,
              seal: deps.seal,
              nodes,
              limits: config,
              taskQueue: config.TEMPORAL_TASK_QUEUE,
              warn: (message, fields) => deps.logger?.warn(fields, message),
            },
            failedRunIds,
            (runId, reason) => deps.logger?.warn({ run_id: runId }, `no error flow started: ${reason}`),
          )
        : [];
      const endpoints = await tx.webhookEndpoint.findMany({
        where: { workspaceId: { in: [...new Set(events.map((e) => e.workspace_id))] }, enabled: true },
        select: { id: true, workspaceId: true, events: true },
      });
      const deliveries = events.flatMap((event) =>
        endpoints
          .filter((endpoint) => endpoint.workspaceId === event.workspace_id && endpoint.events.includes(event.type))
          .map((endpoint) => ({
            id: deliveryIdFor(event.id, endpoint.id),
            workspaceId: event.workspace_id,
            endpointId: endpoint.id,
            eventId: event.id,
            event: event.type,
            body: deliveryBody(event.payload),
            createdAt: now,
            updatedAt: now,
          })),
      );
      if (deliveries.length > 0) await tx.webhookDelivery.createMany({ data: deliveries, skipDuplicates: true });
      return { eventIds: events.map((e) => e.id), deliveryIds: deliveries.map((d) => d.id), errorRuns };
    },
    { timeout: 60_000 },
  );
  if (eventIds.length === 0) return 0;
  // 2. Start the workflows. A crash here leaves the events undispatched: the next pass finds the
  // same delivery ids recorded and starts what is missing (a started one counts as started).
  const options = {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    retryDelaysMs: config.WEBHOOK_RETRY_DELAYS,
    timeoutMs: config.WEBHOOK_TIMEOUT,
  };
  for (let i = 0; i < deliveryIds.length; i += 20) {
    await Promise.all(deliveryIds.slice(i, i + 20).map((id) => startDeliveryWorkflow(temporal, options, id)));
  }
  await startErrorFlowRuns(deps, errorRuns);
  // 3. Only then are the events marked.
  await prisma.event.updateMany({ where: { id: { in: eventIds } }, data: { dispatchedAt: now } });
  return eventIds.length;
}

/**
 * Starts the error flows' runs recorded (or found not started) by this pass. One Temporal refused
 * is ended failed with Temporal's reason; an unknown outcome throws, so that the events stay
 * undispatched and the next pass starts it again (a run already started counts as started).
 */
async function startErrorFlowRuns(deps: DispatcherDeps, starts: ErrorFlowStart[]) {
  const logger = deps.logger ?? { error: () => undefined };
  for (const { run, taskQueue } of starts) {
    const error = await startRunWorkflow({ temporal: deps.temporal, prisma: deps.prisma, logger }, run, {
      trigger: ERROR_FLOW_TRIGGER,
      taskQueue,
    });
    if (!error) continue;
    if (!error.refused) throw error;
    await finalizeRunRecord(
      {
        prisma: deps.prisma,
        clock: deps.clock, // No output to store: the threshold plays no part.
        blobs: createBlobStore({ prisma: deps.prisma, offloadBytes: 0, seal: deps.seal }),
      },
      { runId: run.runId, status: "failed", error: { message: error.message }, skipped: [], reused: [] },
    );
  }
}

const DISPATCH_BATCH = 100;

/**
 * Dispatches continuously: again at once after a full batch (a backlog), else every `intervalMs`
 * or so. Going again after any event at all meant, under steady load, a pass (a transaction and
 * three statements) for every few events instead of one per interval.
 */
export function startDispatcher(deps: DispatcherDeps, intervalMs: number): () => void {
  return runPeriodically(async () => (await dispatchEvents(deps, { limit: DISPATCH_BATCH })) === DISPATCH_BATCH, {
    intervalMs,
    onError: (err) => deps.logger?.error({ err }, "webhook dispatch failed"),
  });
}
