// A run pins its flow's version: pinFlow() checks the flow and reads the definition and plan of
// that version (every starter goes through it); KnownFlows remembers the version each flow's
// last API start pinned, so that a start of an unchanged flow needs no lookup of its own.
import { Prisma, sqlQuery } from "../../../lib/db.js";
import type { FlowStatus, NodePlan } from "../../contracts/run-flow.js";
import { FlowInactive, FlowNotFound, InvalidPlan } from "../../errors.js";
import { storedDefinition, type FlowDefinition } from "../../contracts/flow-definition.js";
import { buildRunPlan } from "../../flows/plan.js";
import type { NodeRegistry } from "../../nodes/registry.js";

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
  target: { workspaceId: string; flowId: string; version?: number | "head" },
  { active = true }: { active?: boolean } = {},
): Promise<PinnedFlow> {
  // "head": the flow's draft when it has one, else its published version.
  const wanted =
    target.version === "head"
      ? Prisma.sql`COALESCE(f.draft_version, f.version)`
      : Prisma.sql`COALESCE(${target.version ?? null}::int, f.version)`;
  // The flow row holds its published version's definition; another one is read from its version.
  const [row] = await sqlQuery<{ name: string; status: FlowStatus; version: number; definition: unknown }>(
    db,
    Prisma.sql`
      SELECT f.name, f.status::text AS status, w.version,
        CASE WHEN w.version = f.version THEN f.definition
          ELSE (SELECT v.definition FROM flow_versions v WHERE v.flow_id = f.id AND v.version = w.version) END
          AS definition
      FROM flows f CROSS JOIN LATERAL (SELECT ${wanted} AS version) w
      WHERE f.id = ${target.flowId} AND f.workspace_id = ${target.workspaceId}`,
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

const KNOWN_FLOWS = 256;

/**
 * Each flow's pinned version as its last run started. A version never changes, so a start that
 * finds the flow still so needs no lookup of its own: one statement checks the flow and records
 * the run. Bounded, the least recently used out.
 */
export class KnownFlows {
  readonly #flows = new Map<string, PinnedFlow>();

  /** Whether the flow's version is remembered (for this workspace). */
  knows(target: { workspaceId: string; flowId: string }): boolean {
    return this.#flows.get(target.flowId)?.workspaceId === target.workspaceId;
  }

  /**
   * The flow's current version as remembered, or with `lookUp` (or none remembered) as pinFlow
   * reads it now; remembered either way, as the most recently used.
   */
  async pin(
    db: object,
    nodes: NodeRegistry,
    target: { workspaceId: string; flowId: string },
    { lookUp }: { lookUp: boolean },
  ): Promise<PinnedFlow> {
    const known = this.knows(target) ? this.#flows.get(target.flowId) : undefined;
    const flow = !lookUp && known ? known : await pinFlow(db, nodes, target);
    this.#flows.delete(flow.id);
    this.#flows.set(flow.id, flow);
    if (this.#flows.size > KNOWN_FLOWS) this.#flows.delete(this.#flows.keys().next().value!);
    return flow;
  }
}
