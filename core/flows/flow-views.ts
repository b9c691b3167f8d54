// How the API shows a flow: a line of the flows list (with its last run), and its detail (with its
// hook and, asked of Temporal, its schedule).
import type { FlowStatus, RunStatus } from "../contracts/run-flow.js";
import { HOOK_TRIGGER_TYPES } from "../nodes/http-trigger/http-trigger.node.js";
import { storedDefinition } from "../contracts/flow-definition.js";
import type { FlowSchedules } from "./flow-schedules.js";

export type { FlowStatus };

export type FlowRow = {
  id: string;
  workspaceId: string;
  name: string;
  description: string;
  status: FlowStatus;
  version: number;
  definition: unknown;
  /** A saved version not yet published (null: none). */
  draftVersion: number | null;
  hookToken: string | null;
  tags: string[] | null;
  createdAt: Date;
  updatedAt: Date;
};

/** A flows-list row: the flow and its newest run's columns (null when it never ran). */
export type ListRow = Pick<FlowRow, "id" | "name" | "status" | "version" | "draftVersion" | "updatedAt" | "tags"> & {
  runId: string | null;
  runStatus: RunStatus | null;
  runStartedAt: Date | null;
  runFinishedAt: Date | null;
  runDurationMs: number | null;
};

/** The hook of a flow whose entry node is an HTTP trigger: where to call it, and whether it answers. */
function hookOf(flow: FlowRow) {
  const entry = storedDefinition(flow.definition).nodes?.find((node) => HOOK_TRIGGER_TYPES.has(node.type));
  if (!entry || !flow.hookToken) return null;
  return { path: `/api/hooks/${flow.hookToken}`, node_id: entry.id, type: entry.type, live: flow.status === "active" };
}

/** The spec's list item, exactly. */
export const listItem = (flow: Pick<FlowRow, "id" | "name" | "status" | "version" | "updatedAt">) => ({
  id: flow.id,
  name: flow.name,
  status: flow.status,
  version: flow.version,
  updated_at: flow.updatedAt.toISOString(),
});

export const lastRunOf = (row: ListRow) =>
  row.runId === null
    ? null
    : {
        id: row.runId,
        status: row.runStatus!,
        started_at: row.runStartedAt!.toISOString(),
        finished_at: row.runFinishedAt?.toISOString() ?? null,
        duration_ms: row.runDurationMs,
      };

const detail = (flow: FlowRow) => ({
  ...listItem(flow),
  description: flow.description,
  tags: flow.tags ?? [],
  created_at: flow.createdAt.toISOString(),
  definition: storedDefinition(flow.definition),
  /** The saved, unpublished version the editor opens (GET …/versions/{n} has its definition); null: none. */
  draft_version: flow.draftVersion,
  hook: hookOf(flow),
});

export type FlowDetail = ReturnType<typeof detail> & {
  schedule: Awaited<ReturnType<FlowSchedules["describe"]>>;
};

/** The detail with the schedule as Temporal has it (asked only of flows that start with one). */
export async function withSchedule(schedules: Pick<FlowSchedules, "describe">, flow: FlowRow): Promise<FlowDetail> {
  return { ...detail(flow), schedule: await schedules.describe(flow) };
}
