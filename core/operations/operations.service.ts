// A workspace's bulk operations as the API uses them: asking for a bulk rerun, reading one's
// progress, cancelling it. Each behaviour is a function in a file of the room's job.
import { actorId, type Actor } from "../workspaces/actor.js";
import {
  cancelOperation,
  startBulkRerun,
  type BulkRerunRequest,
  type OperationIdempotency,
  type OperationsDeps,
} from "./bulk-reruns.js";
import { getOperation } from "./operation-views.js";

export type { BulkRerunRequest, RunSelection } from "./bulk-reruns.js";

export function createOperationsService(deps: OperationsDeps) {
  return {
    bulkRerun: (actor: Actor, request: BulkRerunRequest, idempotency?: OperationIdempotency) =>
      startBulkRerun(deps, { workspaceId: actor.workspace.workspaceId, by: actorId(actor) }, request, idempotency),
    get: (workspaceId: string, id: string) => getOperation(deps, workspaceId, id),
    cancel: (workspaceId: string, id: string) => cancelOperation(deps, workspaceId, id),
  };
}

export type OperationsService = ReturnType<typeof createOperationsService>;
