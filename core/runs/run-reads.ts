// Reading one run of a workspace: its row (opened), and what it was pinned to (input, retried run, definition).
import type { JsonSeal } from "../../lib/crypto/sealed-json.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import type { FlowDefinition } from "../contracts/flow-definition.js";
import { RunNotFound } from "./run-errors.js";
import type { RunTrigger } from "../contracts/run-flow.js";

export type RunRow = {
  id: string;
  workspaceId: string;
  flowId: string;
  flowName: string;
  version: number;
  status: "running" | "success" | "failed" | "cancelled";
  trigger: RunTrigger;
  output: unknown;
  error: unknown;
  retryOf: string | null;
  parentRunId: string | null;
  startedAt: Date;
  finishedAt: Date | null;
  durationMs: number | null;
};

export interface RunReadDeps {
  prisma: PrismaClient;
  seal: JsonSeal;
}

/** The columns of a RunRow, as a statement selects them from the runs table (or a CTE of its rows). */
export const RUN_ROW_COLUMNS = Prisma.sql`id, workspace_id AS "workspaceId", flow_id AS "flowId", flow_name AS "flowName", version,
             status::text AS status, trigger, output, error, retry_of AS "retryOf", parent_run_id AS "parentRunId",
             started_at AS "startedAt", finished_at AS "finishedAt", duration_ms AS "durationMs"`;

/** A row as read (or as the run's end wrote it), its output and error opened. */
export const openRunRow = (seal: JsonSeal, run: RunRow): RunRow => ({
  ...run,
  output: seal.open(run.output),
  error: seal.open(run.error),
});

/**
 * The record a hand-over brought (lib/run-end-notices.ts: the worker in this process that ended
 * the run hands over what endRunRecord answered), if it is that run's, of that workspace.
 */
export function handedRunRow(handed: unknown, workspaceId: string, id: string): RunRow | undefined {
  if (typeof handed !== "object" || handed === null) return undefined;
  const row = handed as Partial<RunRow>;
  return row.id === id && row.workspaceId === workspaceId && typeof row.status === "string"
    ? (row as RunRow)
    : undefined;
}

/** The run of this workspace, its output and error opened; RunNotFound when it has none of that id. */
export async function findRun({ prisma, seal }: RunReadDeps, workspaceId: string, id: string): Promise<RunRow> {
  // Every sync hook reads its run here: one statement past Prisma's query layer (see sqlQuery).
  const [run] = await sqlQuery<RunRow>(
    prisma,
    Prisma.sql`
      SELECT ${RUN_ROW_COLUMNS}
      FROM runs WHERE id = ${id} AND workspace_id = ${workspaceId}`,
  );
  if (!run) throw new RunNotFound();
  return openRunRow(seal, run);
}

/** A run's input, the run it retries, and the definition of the version it ran (null when that version is gone). */
export async function pinnedRun({ prisma, seal }: RunReadDeps, workspaceId: string, id: string) {
  const [run] = await sqlQuery<{ input: unknown; retryOf: string | null; definition: FlowDefinition | null }>(
    prisma,
    Prisma.sql`
      SELECT r.input, r.retry_of AS "retryOf", v.definition
      FROM runs r LEFT JOIN flow_versions v ON v.flow_id = r.flow_id AND v.version = r.version
      WHERE r.id = ${id} AND r.workspace_id = ${workspaceId}`,
  );
  return run && { ...run, input: seal.open(run.input) };
}
