import { canonicalJson } from "../../lib/canonical-json.js";
import type { Prisma } from "../../lib/db.js";
import { emitEvent } from "../../lib/events.js";
import { recordAudit, type AuditEntry, type AuditSource } from "../audit/audit-log.js";
import { FlowNotFound } from "../errors.js";
import { actorId, type Actor } from "../workspaces/actor.js";
import type { SaveFlowDeps } from "./create-flow.js";
import { recordCredentialUses } from "./credential-uses.js";
import { checkDefinition, refuseCycle } from "./definition-checks.js";
import type { FlowDefinition } from "../contracts/flow-definition.js";
import { VersionConflict } from "./flow-errors.js";
import { SCHEDULE_TRANSACTION, scheduleOf } from "./flow-schedules.js";
import { withSchedule, type FlowDetail, type FlowRow, type FlowStatus } from "./flow-views.js";
import { newHookToken } from "./hook-tokens.js";

/** A change made against `version`: the fields given change; a changed definition makes a new version. */
export interface UpdateFlowInput {
  version: number;
  name?: string;
  description?: string;
  status?: FlowStatus;
  tags?: string[];
  definition?: unknown;
  /** Kept with the new version when the definition changes. */
  note?: string;
}

interface FlowChange {
  actor: Actor;
  id: string;
  input: UpdateFlowInput;
  source: AuditSource;
  /** The checked definition, when the change gives one. */
  definition: FlowDefinition | undefined;
}

/**
 * Applies an update made against `input.version`. A changed definition becomes a new
 * immutable version; a stale version answers 409 with the current one. Emits flow.updated.
 */
export async function updateFlow(
  deps: SaveFlowDeps,
  actor: Actor,
  id: string,
  input: UpdateFlowInput,
  source: AuditSource = {},
): Promise<FlowDetail> {
  const workspaceId = actor.workspace.workspaceId;
  const definition =
    input.definition === undefined ? undefined : await checkDefinition(deps, workspaceId, input.definition);
  const flow = await deps.prisma.$transaction(
    (tx) => applyFlowChange(deps, tx, { actor, id, input, source, definition }),
    SCHEDULE_TRANSACTION,
  );
  return withSchedule(deps.schedules, flow);
}

/** The change inside its transaction: checked against the version read, written, announced, scheduled. */
async function applyFlowChange(deps: SaveFlowDeps, tx: Prisma.TransactionClient, change: FlowChange) {
  const { clock, schedules } = deps;
  const { actor, id, input, source, definition } = change;
  const workspaceId = actor.workspace.workspaceId;
  const flow = await tx.flow.findFirst({ where: { id, workspaceId } });
  if (!flow) throw new FlowNotFound();
  if (flow.version !== input.version) throw new VersionConflict(input.version, flow.version);

  const definitionChanged = definition !== undefined && canonicalJson(definition) !== canonicalJson(flow.definition);
  if (definitionChanged)
    await refuseCycle(deps.nodes, tx, { workspaceId, flowId: id, name: input.name ?? flow.name }, definition);
  const tagsChanged = input.tags !== undefined && canonicalJson(input.tags) !== canonicalJson(flow.tags ?? []);
  const changed = [
    ...(definitionChanged ? ["definition"] : []),
    ...(["name", "description", "status"] as const).filter(
      (key) => input[key] !== undefined && input[key] !== flow[key],
    ),
    ...(tagsChanged ? ["tags"] : []),
  ];
  if (changed.length === 0) return flow;

  const now = clock.now();
  const updated = await writeFlowChange(tx, flow, change, definitionChanged ? definition : undefined, now);
  await emitEvent(tx, clock, workspaceId, "flow.updated", {
    workflow_id: id,
    workflow_name: updated.name,
    version: updated.version,
    status: updated.status,
    changed,
    updated_by: actorId(actor),
    updated_at: now.toISOString(),
  });
  for (const entry of auditEntries(id, changed, updated)) await recordAudit(tx, clock, { actor, source }, entry);
  if (definitionChanged)
    await recordCredentialUses(
      tx,
      deps,
      { actor, source },
      { ...updated, definition, previous: flow.definition as FlowDefinition },
    );
  // Activation, deactivation and new versions reach the schedule before the commit.
  if (scheduleOf(flow.definition) || scheduleOf(updated.definition)) await schedules.sync(updated);
  return updated;
}

/** Writes the flow's new fields and, for a new definition, its next version; the flow as it now is. */
async function writeFlowChange(
  tx: Prisma.TransactionClient,
  flow: Pick<FlowRow, "version" | "hookToken">,
  { actor, id, input }: FlowChange,
  newDefinition: FlowDefinition | undefined,
  now: Date,
) {
  const workspaceId = actor.workspace.workspaceId;
  const version = newDefinition ? flow.version + 1 : flow.version;
  // Conditional on the version read: a concurrent update in between makes this one stale.
  const { count } = await tx.flow.updateMany({
    where: { id, workspaceId, version: flow.version },
    data: {
      name: input.name,
      description: input.description,
      status: input.status,
      tags: input.tags,
      ...(newDefinition ? { definition: newDefinition as object, version } : {}),
      // Flows saved before hooks existed get their token with their next change.
      ...(flow.hookToken ? {} : { hookToken: newHookToken() }),
      updatedAt: now,
    },
  });
  if (count === 0) {
    const current = await tx.flow.findFirst({ where: { id }, select: { version: true } });
    throw new VersionConflict(input.version, current?.version ?? flow.version);
  }
  if (newDefinition) {
    await tx.flowVersion.create({
      data: {
        flowId: id,
        version,
        definition: newDefinition as object,
        note: input.note || null,
        createdBy: actorId(actor),
        createdAt: now,
      },
    });
  }
  return tx.flow.findUniqueOrThrow({ where: { id } });
}

/**
 * The audit rows of a change: flow.updated for its definition, name or description (the names of
 * the fields changed and the version now current, never their values), and flow.activated or
 * flow.deactivated for a change of status.
 */
function auditEntries(
  id: string,
  changed: readonly string[],
  updated: Pick<FlowRow, "version" | "status" | "name">,
): AuditEntry[] {
  const object = { kind: "flow" as const, id };
  const fields = changed.filter((field) => field !== "status");
  const entries: AuditEntry[] = [];
  if (fields.length > 0)
    entries.push({
      action: "flow.updated",
      object,
      details: { name: updated.name, version: updated.version, changed: fields },
    });
  if (changed.includes("status"))
    entries.push({
      action: updated.status === "active" ? "flow.activated" : "flow.deactivated",
      object,
      details: { name: updated.name, version: updated.version, status: updated.status },
    });
  return entries;
}
