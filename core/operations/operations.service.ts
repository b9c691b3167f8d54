// A workspace's bulk operations as the API uses them: asking for a bulk rerun or a replay against
// a draft, reading one's progress (a replay's results), cancelling it. Each behaviour is a function
// in a file of the room's job.
import { createJsonSeal } from "../../lib/crypto/sealed-json.js";
import type { Config } from "../../lib/config.js";
import { createBlobStore } from "../runs/records/blobs.js";
import { recordAudit, type AuditContext, type AuditSource } from "../audit/audit-log.js";
import { actorId, type Actor } from "../workspaces/actor.js";
import { cancelOperation, startBulkRerun, type BulkRerunRequest, type OperationIdempotency } from "./bulk-reruns.js";
import { getOperation } from "./operation-views.js";
import { startReplay, type ReplayDeps, type ReplaySelection } from "./replays.js";

export type { BulkRerunRequest, RunSelection } from "./bulk-reruns.js";
export type { ReplaySelection } from "./replays.js";

export type OperationsServiceDeps = ReplayDeps & {
  config: ReplayDeps["config"] & Pick<Config, "SVC_ENCRYPTION_KEY" | "RUN_OUTPUT_OFFLOAD_BYTES">;
};

export function createOperationsService(deps: OperationsServiceDeps) {
  const seal = createJsonSeal(deps.config.SVC_ENCRYPTION_KEY);
  const blobs = createBlobStore({ prisma: deps.prisma, offloadBytes: deps.config.RUN_OUTPUT_OFFLOAD_BYTES, seal });
  const caller = (actor: Actor) => ({ workspaceId: actor.workspace.workspaceId, by: actorId(actor) });
  return {
    /** A bulk rerun; a new one (not an Idempotency-Key's repeat) writes its audit row once started. */
    async bulkRerun(
      actor: Actor,
      request: BulkRerunRequest,
      idempotency?: OperationIdempotency,
      source: AuditSource = {},
    ) {
      const operation = await startBulkRerun(deps, caller(actor), request, idempotency);
      if (!operation.replayed)
        await recordAudit(
          deps.prisma,
          deps.clock,
          { actor, source },
          {
            action: "run.bulk_rerun",
            object: { kind: "operation", id: operation.id },
            details: { total: operation.total, ...("ids" in request.selection ? {} : { by_filter: true }) },
          },
        );
      return operation;
    },
    /** Replays runs of the flow on a draft (the flow's current definition when absent). */
    replay: (
      actor: Actor,
      flowId: string,
      request: { definition?: unknown; selection: ReplaySelection | { last?: undefined } },
    ) => startReplay(deps, caller(actor), { flowId, ...request }),
    get: (workspaceId: string, id: string) => getOperation({ ...deps, seal, blobs }, workspaceId, id),
    /** Cancels a running operation; writes operation.cancelled once Temporal took the cancellation. */
    async cancel(workspaceId: string, id: string, audit?: AuditContext) {
      const { answer, operation } = await cancelOperation(deps, workspaceId, id);
      if (audit)
        await recordAudit(deps.prisma, deps.clock, audit, {
          action: "operation.cancelled",
          object: { kind: "operation", id },
          details: { kind: operation.kind, total: operation.total },
        });
      return answer;
    },
  };
}

export type OperationsService = ReturnType<typeof createOperationsService>;
