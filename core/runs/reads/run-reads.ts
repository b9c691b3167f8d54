// Reading one run of a workspace: its row (opened), and what it was pinned to (input, retried run, definition).
import type { JsonSeal } from "../../../lib/crypto/sealed-json.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../../lib/db.js";
import type { FlowDefinition } from "../../contracts/flow-definition.js";
import { domainErrorClass } from "../../errors.js";
import { openRunRow, RUN_ROW_COLUMNS, type RerunRecord, type RunRow } from "../records/run-records.js";

export const RunNotFound = domainErrorClass("RunNotFound", "not_found", "not_found", "No such run in this workspace");

export interface RunReadDeps {
  prisma: PrismaClient;
  seal: JsonSeal;
}

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

/** A run's input, the run it retries or reruns (and how), and the definition of the version it ran (null when that version is gone). */
export async function pinnedRun({ prisma, seal }: RunReadDeps, workspaceId: string, id: string) {
  const [run] = await sqlQuery<{
    input: unknown;
    retryOf: string | null;
    rerunOf: string | null;
    rerun: unknown;
    definition: FlowDefinition | null;
  }>(
    prisma,
    Prisma.sql`
      SELECT r.input, r.retry_of AS "retryOf", r.rerun_of AS "rerunOf", r.rerun, v.definition
      FROM runs r LEFT JOIN flow_versions v ON v.flow_id = r.flow_id AND v.version = r.version
      WHERE r.id = ${id} AND r.workspace_id = ${workspaceId}`,
  );
  return run && { ...run, input: seal.open(run.input), rerun: seal.open(run.rerun) as RerunRecord | null };
}
