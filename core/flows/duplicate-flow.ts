// Duplicating a flow: a new, inactive flow with the source's current definition.
import type { AuditSource } from "../audit/audit-log.js";
import type { Actor } from "../workspaces/actor.js";
import { createFlow, type SaveFlowDeps } from "./create-flow.js";
import { findFlow } from "./find-flow.js";
import type { FlowDetail } from "./flow-views.js";

/** The longest flow name (flows.schema's name). */
const NAME_MAX = 200;
const COPY_SUFFIX = " (copy)";

/** "<name> (copy)", the name cut so that the whole stays within NAME_MAX. */
export const copyName = (name: string) => name.slice(0, NAME_MAX - COPY_SUFFIX.length).trimEnd() + COPY_SUFFIX;

/**
 * A copy of the flow as a new flow: its current definition, description and tags as version 1, named
 * "… (copy)", inactive (its hook does not answer and its schedule, if any, is not on until it
 * is activated), with a hook token of its own. The source's versions and runs stay with it.
 */
export async function duplicateFlow(
  deps: SaveFlowDeps,
  actor: Actor,
  id: string,
  audit: AuditSource = {},
): Promise<FlowDetail> {
  const source = await findFlow(deps.prisma, actor.workspace.workspaceId, id);
  // Recorded as the copy's flow.created, like any new flow.
  return createFlow(
    deps,
    actor,
    {
      name: copyName(source.name),
      description: source.description,
      status: "inactive",
      tags: source.tags ?? [],
      definition: source.definition,
    },
    audit,
  );
}
