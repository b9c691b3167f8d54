// A run pins its flow's version: pinFlow() checks the flow and reads the definition and plan of
// that version, runFlowInput() gives the workflow its input. Every starter goes through both.
import { Prisma, sqlQuery } from "../../lib/db.js";
import type { FlowStatus, NodePlan, RunFlowInput } from "../contracts/run-flow.js";
import { FlowInactive, FlowNotFound, InvalidPlan } from "../errors.js";
import { storedDefinition, type FlowDefinition } from "../contracts/flow-definition.js";
import { buildRunPlan } from "../flows/plan.js";
import type { NodeRegistry } from "../nodes/registry.js";

/** A flow's version as a run pins it: the definition it runs and the plan the workflow follows. */
export interface PinnedFlow {
  id: string;
  workspaceId: string;
  name: string;
  version: number;
  definition: FlowDefinition;
  plan: Record<string, NodePlan>;
}

/** The run plan of a definition; InvalidPlan when this installation cannot run it. */
function planOf(definition: FlowDefinition, nodes: NodeRegistry): Record<string, NodePlan> {
  try {
    return buildRunPlan(definition, nodes);
  } catch (error) {
    throw new InvalidPlan((error as Error).message);
  }
}

/**
 * The flow `flowId` of the workspace at `version` (its current one when absent), in one
 * statement on `db` (a client or a transaction). FlowNotFound when the workspace has no such flow
 * (or version), FlowInactive when `active` (the default: a new run) and the flow is not,
 * InvalidPlan when the version cannot run here.
 */
export async function pinFlow(
  db: object,
  nodes: NodeRegistry,
  target: { workspaceId: string; flowId: string; version?: number },
  { active = true }: { active?: boolean } = {},
): Promise<PinnedFlow> {
  const version = target.version ?? null;
  // The flow row holds its current version's definition; an older one is read from its version.
  const [row] = await sqlQuery<{ name: string; status: FlowStatus; version: number; definition: unknown }>(
    db,
    Prisma.sql`
      SELECT f.name, f.status::text AS status, COALESCE(${version}::int, f.version) AS version,
        CASE WHEN ${version}::int IS NULL OR ${version}::int = f.version THEN f.definition
          ELSE (SELECT v.definition FROM flow_versions v WHERE v.flow_id = f.id AND v.version = ${version}::int) END
          AS definition
      FROM flows f WHERE f.id = ${target.flowId} AND f.workspace_id = ${target.workspaceId}`,
  );
  if (!row || row.definition === null) throw new FlowNotFound();
  if (active && row.status !== "active") throw new FlowInactive(row.status);
  const definition = storedDefinition(row.definition);
  return {
    id: target.flowId,
    workspaceId: target.workspaceId,
    name: row.name,
    version: row.version,
    definition,
    plan: planOf(definition, nodes),
  };
}

/** The runFlow workflow's input for a run of `flow`. */
export function runFlowInput(
  flow: PinnedFlow,
  run: { id: string; input: unknown; startedAt: Date; reuse?: RunFlowInput["reuse"] },
): RunFlowInput {
  return {
    runId: run.id,
    workspaceId: flow.workspaceId,
    flowId: flow.id,
    flowName: flow.name,
    version: flow.version,
    definition: flow.definition,
    plan: flow.plan,
    input: run.input,
    startedAt: run.startedAt.toISOString(),
    ...(run.reuse ? { reuse: run.reuse } : {}),
  };
}
