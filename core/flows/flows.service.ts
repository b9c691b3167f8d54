// The flows of a workspace: list, read, create, update (new versions), regenerate the hook, delete,
// and their versions. This file only wires: each behaviour is a function in a file of its own beside it.
import type { Clock } from "../../lib/clock.js";
import type { PrismaClient } from "../../lib/db.js";
import type { CredentialsService } from "../credentials/credentials.service.js";
import type { NodeRegistry } from "../nodes/registry.js";
import type { Actor } from "../workspaces/actor.js";
import { recordAudit, type AuditContext, type AuditSource } from "../audit/audit-log.js";
import { createFlow, type CreateFlowInput } from "./create-flow.js";
import { duplicateFlow } from "./duplicate-flow.js";
import { findFlow } from "./find-flow.js";
import { listFlows, type FlowListQuery } from "./flow-lists.js";
import type { FlowSchedules } from "./flow-schedules.js";
import { flowVersion, listFlowVersions } from "./flow-versions.js";
import { withSchedule, type FlowDetail } from "./flow-views.js";
import { newHookToken } from "./hook-tokens.js";
import { publishFlow, type PublishFlowInput } from "./publish-flow.js";
import { removeFlow, type RemoveFlowDeps } from "./remove-flow.js";
import { updateFlow, type UpdateFlowInput } from "./update-flow.js";

export type { CreateFlowInput } from "./create-flow.js";
export type { FlowDetail, FlowStatus } from "./flow-views.js";
export type { UpdateFlowInput } from "./update-flow.js";

export function createFlowsService(deps: {
  prisma: PrismaClient;
  clock: Clock;
  nodes: NodeRegistry;
  schedules: FlowSchedules;
  credentials: Pick<CredentialsService, "checkReferences">;
  /** What cancels the runs of a flow being deleted (see RemoveFlowDeps). */
  runs: RemoveFlowDeps["runs"];
}) {
  const { prisma, schedules } = deps;
  return {
    list: (workspaceId: string, query: FlowListQuery) => listFlows(prisma, workspaceId, query),

    async get(workspaceId: string, id: string): Promise<FlowDetail> {
      return withSchedule(schedules, await findFlow(prisma, workspaceId, id));
    },

    create: (actor: Actor, input: CreateFlowInput, source?: AuditSource) => createFlow(deps, actor, input, source),
    update: (actor: Actor, id: string, input: UpdateFlowInput, source?: AuditSource) =>
      updateFlow(deps, actor, id, input, source),
    publish: (actor: Actor, id: string, input: PublishFlowInput, source?: AuditSource) =>
      publishFlow(deps, actor, id, input, source),
    duplicate: (actor: Actor, id: string, source?: AuditSource) => duplicateFlow(deps, actor, id, source),

    /** A new hook token: the old hook URL stops answering at once. */
    async regenerateHook(workspaceId: string, id: string, audit?: AuditContext): Promise<FlowDetail> {
      const flow = await findFlow(prisma, workspaceId, id);
      const updated = await prisma.$transaction(async (tx) => {
        const row = await tx.flow.update({ where: { id }, data: { hookToken: newHookToken() } });
        // The token is the secret: the row names the flow only.
        if (audit)
          await recordAudit(tx, deps.clock, audit, {
            action: "flow.hook_regenerated",
            object: { kind: "flow", id },
            details: { name: flow.name },
          });
        return row;
      });
      return withSchedule(schedules, updated);
    },

    remove: (workspaceId: string, id: string, audit?: AuditContext) => removeFlow(deps, workspaceId, id, audit),
    versions: (workspaceId: string, id: string, query: { limit: number; before?: number }) =>
      listFlowVersions(prisma, workspaceId, id, query),
    version: (workspaceId: string, id: string, version: number) => flowVersion(prisma, workspaceId, id, version),
  };
}

export type FlowsService = ReturnType<typeof createFlowsService>;
