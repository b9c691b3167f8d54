// The bulk-rerun workflow's activities: a pass over the next items (core/operations/rerun-passes.ts)
// and the operation's end. Reruns start as the API starts them, through a Temporal client: the
// process's own (lazy-temporal-client.ts).
import { Context } from "@temporalio/activity";
import type { Client } from "@temporalio/client";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import { createJsonSeal } from "../../lib/crypto/sealed-json.js";
import type { PrismaClient } from "../../lib/db.js";
import { createLogger } from "../../lib/logger.js";
import type { OperationEnd, RerunPass } from "../../core/contracts/operations.js";
import type { NodeRegistry } from "../../core/nodes/registry.js";
import { endOperationRecord } from "../../core/operations/bulk-reruns.js";
import { rerunPass } from "../../core/operations/rerun-passes.js";
import { createBlobStore } from "../../core/runs/records/blobs.js";
import { createRunStarter } from "../../core/runs/start/run-starter.js";
import type { LazyTemporalClientConfig } from "./lazy-temporal-client.js";

export type OperationActivityConfig = LazyTemporalClientConfig &
  Pick<Config, "TEMPORAL_NAMESPACE" | "SVC_ENCRYPTION_KEY" | "RUN_OUTPUT_OFFLOAD_BYTES" | "LOG_LEVEL">;

export interface OperationActivityDeps {
  prisma: PrismaClient;
  clock: Clock;
  nodes: NodeRegistry;
  config: OperationActivityConfig;
  /** The process's Temporal client (lazy-temporal-client.ts). */
  temporal: () => Promise<Client>;
}

export function createOperationActivities(deps: OperationActivityDeps) {
  const { prisma, clock, nodes, config } = deps;
  const seal = createJsonSeal(config.SVC_ENCRYPTION_KEY);
  const blobs = createBlobStore({ prisma, offloadBytes: config.RUN_OUTPUT_OFFLOAD_BYTES, seal });
  const logger = createLogger(config, "operations");
  const { temporal } = deps;
  const passDeps = async () => ({
    prisma,
    clock,
    nodes,
    seal,
    // Reruns run on the task queue this activity runs on, as a schedule's runs do.
    starter: createRunStarter({
      prisma,
      clock,
      nodes,
      blobs,
      logger,
      config: { TEMPORAL_TASK_QUEUE: Context.current().info.taskQueue },
      temporal: await temporal(),
    }),
  });
  return {
    /** Reruns up to `limit` pending items of the operation (core/operations/rerun-passes.ts). */
    async rerunPass({ operationId, limit }: { operationId: string; limit: number }): Promise<RerunPass> {
      return rerunPass(await passDeps(), operationId, limit);
    },
    /** Ends the operation's record once. */
    async endOperation({ operationId, end }: { operationId: string; end: OperationEnd }): Promise<void> {
      await endOperationRecord(prisma, clock, operationId, end);
    },
  };
}

export type OperationActivities = ReturnType<typeof createOperationActivities>;
