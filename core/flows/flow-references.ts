// The flows a flow's runs start (its loop and flow.call nodes' flow, its error flow), and the
// cycles they close: a flow that starts itself again, directly or through others, would start
// runs until its run tree's depth limit, so its save is refused. Agents choose flows at run time
// and a workspace's default error flow is a setting: those cycles stop at the run tree's limits
// (core/runs/start/child-runs.ts) and at the rule that error flows' runs start no error flow.
import { Prisma, sqlQuery } from "../../lib/db.js";
import type { NodeRegistry } from "../nodes/registry.js";
import type { FlowDefinition } from "../contracts/flow-definition.js";
import { handlingOf } from "./plan.js";

/** A flow a definition starts runs of, and where the definition names it. */
export interface FlowReference {
  flowId: string;
  /** The field naming it, as validation problems name fields (`nodes[2].config.flow_id`, `error_flow_id`). */
  path: string;
  how: string;
}

/** The flows `definition`'s runs start: its loop and flow.call nodes' and its error flow. */
export function flowReferences(definition: FlowDefinition, registry: NodeRegistry): FlowReference[] {
  const references: FlowReference[] = [];
  definition.nodes.forEach((node, index) => {
    const type = registry.get(node.type);
    const flowId = (node.config as { flow_id?: unknown } | undefined)?.flow_id;
    if (type && handlingOf(type) === "loop" && typeof flowId === "string") {
      references.push({ flowId, path: `nodes[${index}].config.flow_id`, how: `${node.type} node "${node.id}"` });
    }
  });
  if (definition.error_flow_id) {
    references.push({ flowId: definition.error_flow_id, path: "error_flow_id", how: "its error flow" });
  }
  return references;
}

/** Flows of one workspace this far from the flow saved are followed at most (a bound on the walk). */
const MAX_FLOWS_FOLLOWED = 10_000;

/**
 * The first reference of `definition` (the new version of flow `flowId`) that leads back to
 * that flow through the workspace's flows as they are now, with the names along the way; or
 * undefined. One statement per step of the walk.
 */
export async function findFlowCycle(
  db: object,
  registry: NodeRegistry,
  target: { workspaceId: string; flowId: string; name: string },
  definition: FlowDefinition,
): Promise<{ reference: FlowReference; names: string[] } | undefined> {
  for (const reference of flowReferences(definition, registry)) {
    const path = await pathBack(db, registry, target, reference.flowId);
    if (path) return { reference, names: [target.name, ...path] };
  }
  return undefined;
}

/** The names of the flows from `start` back to the target (the target last), if `start` leads there. */
async function pathBack(
  db: object,
  registry: NodeRegistry,
  target: { workspaceId: string; flowId: string; name: string },
  start: string,
): Promise<string[] | undefined> {
  if (start === target.flowId) return [target.name];
  const cameFrom = new Map<string, string | null>([[start, null]]);
  const names = new Map<string, string>();
  let frontier = [start];
  while (frontier.length > 0 && cameFrom.size < MAX_FLOWS_FOLLOWED) {
    const rows = await sqlQuery<{ id: string; name: string; definition: FlowDefinition }>(
      db,
      Prisma.sql`SELECT id, name, definition FROM flows
        WHERE workspace_id = ${target.workspaceId} AND id IN (${Prisma.join(frontier)})`,
    );
    const next: string[] = [];
    for (const row of rows) {
      names.set(row.id, row.name);
      for (const reference of flowReferences(row.definition, registry)) {
        if (cameFrom.has(reference.flowId)) continue;
        cameFrom.set(reference.flowId, row.id);
        if (reference.flowId === target.flowId) return namesAlong(cameFrom, names, row.id, target.name);
        next.push(reference.flowId);
      }
    }
    frontier = next;
  }
  return undefined;
}

function namesAlong(
  cameFrom: Map<string, string | null>,
  names: Map<string, string>,
  last: string,
  targetName: string,
): string[] {
  const path: string[] = [targetName];
  for (let id: string | null = last; id !== null; id = cameFrom.get(id) ?? null) path.unshift(names.get(id) ?? id);
  return path;
}
