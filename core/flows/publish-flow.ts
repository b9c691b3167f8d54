// Publishing: a saved version of a flow (its draft, or an older one to roll back to) becomes what
// production runs. The version is checked again as a save checks it (a credential it names may
// have gone since it was saved), written as the flow's definition in one conditional statement,
// announced (flow.updated, update-flow.ts announceFlowChange), audited (flow.published) and given to the schedule before the commit.
import type { Prisma } from "../../lib/db.js";
import { recordAudit, type AuditSource } from "../audit/audit-log.js";
import type { FlowDefinition } from "../contracts/flow-definition.js";
import { FlowNotFound } from "../errors.js";
import type { Actor } from "../workspaces/actor.js";
import type { SaveFlowDeps } from "./create-flow.js";
import { checkDefinition, refuseCycle } from "./definition-checks.js";
import { FlowVersionNotFound, VersionConflict } from "./flow-errors.js";
import { SCHEDULE_TRANSACTION } from "./flow-schedules.js";
import { announceFlowChange } from "./update-flow.js";
import { withSchedule, type FlowDetail, type FlowRow } from "./flow-views.js";

export interface PublishFlowInput {
  /** The saved version to publish. */
  version: number;
  /** The published version the caller saw: another one published since answers 409. */
  published_version?: number;
}

/**
 * Makes `input.version` the published version. Publishing the draft clears it; publishing another
 * version (a rollback) keeps the draft as it is. Publishing the published version changes nothing.
 */
export async function publishFlow(
  deps: SaveFlowDeps,
  actor: Actor,
  id: string,
  input: PublishFlowInput,
  source: AuditSource = {},
): Promise<FlowDetail> {
  const workspaceId = actor.workspace.workspaceId;
  const stored = await deps.prisma.flowVersion.findFirst({
    where: { flowId: id, version: input.version, flow: { workspaceId } },
    select: { definition: true },
  });
  if (!stored) {
    if (!(await deps.prisma.flow.findFirst({ where: { id, workspaceId }, select: { id: true } })))
      throw new FlowNotFound();
    throw new FlowVersionNotFound(id, input.version);
  }
  const definition = await checkDefinition(deps, workspaceId, stored.definition);
  const flow = await deps.prisma.$transaction(
    (tx) => applyPublish(deps, tx, { actor, id, input, source, definition }),
    SCHEDULE_TRANSACTION,
  );
  return withSchedule(deps.schedules, flow);
}

interface Publish {
  actor: Actor;
  id: string;
  input: PublishFlowInput;
  source: AuditSource;
  definition: FlowDefinition;
}

async function applyPublish(deps: SaveFlowDeps, tx: Prisma.TransactionClient, publish: Publish): Promise<FlowRow> {
  const { clock } = deps;
  const { actor, id, input, source, definition } = publish;
  const workspaceId = actor.workspace.workspaceId;
  const flow = await tx.flow.findFirst({ where: { id, workspaceId } });
  if (!flow) throw new FlowNotFound();
  if (input.published_version !== undefined && input.published_version !== flow.version)
    throw new VersionConflict(input.published_version, flow.version);
  if (flow.version === input.version) return flow;
  await refuseCycle(deps.nodes, tx, { workspaceId, flowId: id, name: flow.name }, definition);

  const now = clock.now();
  const { count } = await tx.flow.updateMany({
    where: { id, workspaceId, version: flow.version, draftVersion: flow.draftVersion },
    data: {
      definition: definition as object,
      version: input.version,
      draftVersion: flow.draftVersion === input.version ? null : flow.draftVersion,
      updatedAt: now,
    },
  });
  if (count === 0) {
    const current = await tx.flow.findFirst({ where: { id }, select: { version: true } });
    throw new VersionConflict(input.published_version ?? flow.version, current?.version ?? flow.version);
  }
  const updated = await tx.flow.findUniqueOrThrow({ where: { id } });
  await announceFlowChange(deps, tx, { actor, before: flow, updated, changed: ["definition"], now });
  await recordAudit(
    tx,
    clock,
    { actor, source },
    {
      action: "flow.published",
      object: { kind: "flow", id },
      details: { name: updated.name, version: updated.version, previous_version: flow.version },
    },
  );
  return updated;
}
