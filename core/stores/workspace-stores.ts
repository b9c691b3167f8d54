// The data stores of one workspace, as a node's env carries them (env.kv, env.db, env.objects).
import type { Clock } from "../../lib/clock.js";
import type { PrismaClient } from "../../lib/db.js";
import type { NodeEnv } from "../nodes/define-node.js";
import { createDataTables } from "./data-tables.store.js";
import { createKvStore } from "./kv.store.js";
import { createObjectStore, type ObjectStoreConfig } from "./object.store.js";

export interface WorkspaceStoresDeps {
  prisma: PrismaClient;
  clock: Clock;
  config: ObjectStoreConfig;
}

export function createWorkspaceStores(
  deps: WorkspaceStoresDeps,
  workspaceId: string,
): Required<Pick<NodeEnv, "kv" | "db" | "objects">> {
  return {
    kv: createKvStore(deps, workspaceId),
    db: createDataTables(deps, workspaceId),
    objects: createObjectStore(deps, workspaceId),
  };
}
