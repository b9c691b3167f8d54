import type { PrismaClient } from "../../lib/db.js";
import { createLogActivities } from "./log.activities.js";

export interface ActivityDeps {
  prisma: PrismaClient;
}

/** Every activity of the worker, built from injected clients so tests can hand in their own. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createLogActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
