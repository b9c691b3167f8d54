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

/**
 * A change made against `version`: the fields given change; a changed definition makes a new
 * version, published at once (the default: `version` is then the published version) or saved as
 * the flow's draft with `publish: false` (`version` is then the head: the draft's version when
 * the flow has one, else the published one). Name, description, status and tags change at once.
 */
export interface UpdateFlowInput {
  version: number;
  /** False: a changed definition becomes the draft, and production keeps the published version. */
  publish?: boolean;
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

/** The version a change is made against, and the definition it is compared with. */
async function baseOf(tx: Prisma.TransactionClient, flow: FlowRow, publish: boolean) {
  if (publish || flow.draftVersion === null) return { version: flow.version, definition: flow.definition };
  const draft = await tx.flowVersion.findUniqueOrThrow({
    where: { flowId_version: { flowId: flow.id, version: flow.draftVersion } },
    select: { definition: true },
  });
  return { version: flow.draftVersion, definition: draft.definition };
}

/** The number the flow's next version takes: above every version saved (drafts and rollbacks included). */
export async function nextVersionOf(tx: Prisma.TransactionClient, flowId: string): Promise<number> {
  const { _max } = await tx.flowVersion.aggregate({ where: { flowId }, _max: { version: true } });
  return (_max.version ?? 0) + 1;
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
  const { clock } = deps;
  const { actor, id, input, source, definition } = change;
  const workspaceId = actor.workspace.workspaceId;
  const flow = await tx.flow.findFirst({ where: { id, workspaceId } });
  if (!flow) throw new FlowNotFound();
  const publish = input.publish !== false;
  const base = await baseOf(tx, flow, publish);
  if (base.version !== input.version) throw new VersionConflict(input.version, base.version);

  const definitionChanged = definition !== undefined && canonicalJson(definition) !== canonicalJson(base.definition);
  if (definitionChanged)
    await refuseCycle(deps.nodes, tx, { workspaceId, flowId: id, name: input.name ?? flow.name }, definition);
  const tagsChanged = input.tags !== undefined && canonicalJson(input.tags) !== canonicalJson(flow.tags ?? []);
  const fields = [
    ...(["name", "description", "status"] as const).filter(
      (key) => input[key] !== undefined && input[key] !== flow[key],
    ),
    ...(tagsChanged ? ["tags"] : []),
  ];
  // What production sees changed: a draft saved is not announced.
  const changed = [...(definitionChanged && publish ? ["definition"] : []), ...fields];
  if (changed.length === 0 && !definitionChanged) return flow;

  const now = clock.now();
  const newVersion = definitionChanged ? { definition, number: await nextVersionOf(tx, id), publish } : undefined;
  const updated = await writeFlowChange(tx, flow, change, newVersion, now);
  if (changed.length > 0) await announceFlowChange(deps, tx, { actor, before: flow, updated, changed, now });
  for (const entry of auditEntries(
    id,
    { changed, draft: newVersion?.publish === false ? newVersion.number : null },
    updated,
  ))
    await recordAudit(tx, clock, { actor, source }, entry);
  if (newVersion)
    await recordCredentialUses(
      tx,
      deps,
      { actor, source },
      {
        ...updated,
        version: newVersion.number,
        definition: newVersion.definition,
        previous: base.definition as FlowDefinition,
      },
    );
  return updated;
}

/**
 * What production sees change, announced inside the change's transaction: flow.updated, and the
 * schedule given the flow as it now is (activation, deactivation and published versions reach
 * Temporal before the commit) when it had or has one.
 */
export async function announceFlowChange(
  { clock, schedules }: Pick<SaveFlowDeps, "clock" | "schedules">,
  tx: Prisma.TransactionClient,
  change: { actor: Actor; before: FlowRow; updated: FlowRow; changed: readonly string[]; now: Date },
): Promise<void> {
  const { actor, before, updated, changed, now } = change;
  await emitEvent(tx, clock, updated.workspaceId, "flow.updated", {
    workflow_id: updated.id,
    workflow_name: updated.name,
    version: updated.version,
    status: updated.status,
    changed,
    updated_by: actorId(actor),
    updated_at: now.toISOString(),
  });
  if (scheduleOf(before.definition) || scheduleOf(updated.definition)) await schedules.sync(updated);
}

/** A new version a change makes: its definition, its number, and whether it goes live. */
interface NewVersion {
  definition: FlowDefinition;
  number: number;
  publish: boolean;
}

/** Writes the flow's new fields and, for a new definition, its next version; the flow as it now is. */
async function writeFlowChange(
  tx: Prisma.TransactionClient,
  flow: Pick<FlowRow, "version" | "draftVersion" | "hookToken">,
  { actor, id, input }: FlowChange,
  newVersion: NewVersion | undefined,
  now: Date,
) {
  const workspaceId = actor.workspace.workspaceId;
  // Published, the new version supersedes any draft (which stays among the versions); saved as a
  // draft, it becomes the one the editor opens.
  const versionFields = !newVersion
    ? {}
    : newVersion.publish
      ? { definition: newVersion.definition as object, version: newVersion.number, draftVersion: null }
      : { draftVersion: newVersion.number };
  // Conditional on the versions read: a concurrent update in between makes this one stale.
  const { count } = await tx.flow.updateMany({
    where: { id, workspaceId, version: flow.version, draftVersion: flow.draftVersion },
    data: {
      name: input.name,
      description: input.description,
      status: input.status,
      tags: input.tags,
      ...versionFields,
      // Flows saved before hooks existed get their token with their next change.
      ...(flow.hookToken ? {} : { hookToken: newHookToken() }),
      updatedAt: now,
    },
  });
  if (count === 0) {
    const current = await tx.flow.findFirst({ where: { id }, select: { version: true, draftVersion: true } });
    const head = input.publish === false ? (current?.draftVersion ?? current?.version) : current?.version;
    throw new VersionConflict(input.version, head ?? flow.version);
  }
  if (newVersion) {
    await tx.flowVersion.create({
      data: {
        flowId: id,
        version: newVersion.number,
        definition: newVersion.definition as object,
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
 * the fields changed and the version now current, never their values), flow.draft_saved for a
 * definition saved as the draft, and flow.activated or flow.deactivated for a change of status.
 */
function auditEntries(
  id: string,
  { changed, draft }: { changed: readonly string[]; draft: number | null },
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
  if (draft !== null)
    entries.push({
      action: "flow.draft_saved",
      object,
      details: { name: updated.name, version: draft, published_version: updated.version },
    });
  if (changed.includes("status"))
    entries.push({
      action: updated.status === "active" ? "flow.activated" : "flow.deactivated",
      object,
      details: { name: updated.name, version: updated.version, status: updated.status },
    });
  return entries;
}
