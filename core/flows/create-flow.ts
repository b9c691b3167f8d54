import type { Clock } from "../../lib/clock.js";
import type { PrismaClient } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import { recordAudit, type AuditSource } from "../audit/audit-log.js";
import { actorId, type Actor } from "../workspaces/actor.js";
import { recordCredentialUses } from "./credential-uses.js";
import { checkDefinition, type DefinitionCheckDeps } from "./definition-checks.js";
import { TemplateNotFound } from "./flow-errors.js";
import { SCHEDULE_TRANSACTION, scheduleOf, type FlowSchedules } from "./flow-schedules.js";
import { findTemplate } from "./flow-templates.js";
import { withSchedule, type FlowDetail, type FlowStatus } from "./flow-views.js";
import { newHookToken } from "./hook-tokens.js";

/** A new flow: from a definition, or from a template (its name, description and definition unless given). */
export interface CreateFlowInput {
  name?: string;
  description?: string;
  status?: FlowStatus;
  tags?: string[];
  definition?: unknown;
  template?: string;
}

/** What saving a flow takes: its checks, the database, and its schedule kept in step with it. */
export interface SaveFlowDeps extends DefinitionCheckDeps {
  prisma: PrismaClient;
  clock: Clock;
  schedules: Pick<FlowSchedules, "sync" | "describe">;
}

/** Saves a new flow as its version 1, with its hook token and, when it starts with one, its schedule. */
export async function createFlow(
  deps: SaveFlowDeps,
  actor: Actor,
  input: CreateFlowInput,
  source: AuditSource = {},
): Promise<FlowDetail> {
  const { prisma, clock, schedules } = deps;
  const template = input.template === undefined ? undefined : findTemplate(input.template);
  if (input.template !== undefined && !template) {
    throw new TemplateNotFound(input.template);
  }
  const definition = await checkDefinition(
    deps,
    actor.workspace.workspaceId,
    template ? template.definition : input.definition,
  );
  const now = clock.now();
  const id = newId("wf");
  const flow = await prisma.$transaction(async (tx) => {
    const created = await tx.flow.create({
      data: {
        id,
        workspaceId: actor.workspace.workspaceId,
        name: input.name ?? template!.name,
        description: input.description ?? template?.description ?? "",
        status: input.status ?? "active",
        tags: input.tags ?? [],
        version: 1,
        definition: definition as object,
        hookToken: newHookToken(),
        createdBy: actorId(actor),
        createdAt: now,
        updatedAt: now,
      },
    });
    await tx.flowVersion.create({
      data: { flowId: id, version: 1, definition: definition as object, createdBy: actorId(actor), createdAt: now },
    });
    await recordAudit(
      tx,
      clock,
      { actor, source },
      {
        action: "flow.created",
        object: { kind: "flow", id },
        details: {
          name: created.name,
          status: created.status,
          version: 1,
          ...(template ? { template: template.id } : {}),
        },
      },
    );
    await recordCredentialUses(tx, deps, { actor, source }, { id, name: created.name, version: 1, definition });
    // Inside the transaction: when Temporal refuses the schedule, the flow is not saved either.
    if (scheduleOf(definition)) await schedules.sync(created);
    return created;
  }, SCHEDULE_TRANSACTION);
  return withSchedule(schedules, flow);
}
