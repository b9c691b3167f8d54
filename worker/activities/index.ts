import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import type { PrismaClient } from "../../lib/db.js";
import type { NodeRegistry } from "../nodes/registry.js";
import { createLogActivities } from "./log.activities.js";
import { createNodeActivities } from "./node.activities.js";

export interface ActivityDeps {
  prisma: PrismaClient;
  clock: Clock;
  nodes: NodeRegistry;
  config: Pick<Config, "RUN_OUTPUT_OFFLOAD_BYTES" | "OBJECT_STORAGE_DIR" | "OBJECT_MAX_BYTES">;
}

/** Every activity of the worker, built from injected clients so tests can hand in their own. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createLogActivities(deps),
    ...createNodeActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
