// Asking for a replay against a draft (POST /api/flows/{id}/replay): the draft checked as a save
// checks a definition (the flow's current one when none is given), the selection (the flow's last
// N ended runs, or ids) resolved into the operation's items in the statement that records it (kind
// `replay`), then its workflow started: the bulk rerun's, whose passes replay each item once
// (rerun-passes.ts, core/runs/start/replay-run.ts). Limits: REPLAY_MAX_RUNS runs (400 beyond),
// BULK_RERUNS_PER_WORKSPACE operations running (429).
import { Prisma, sqlQuery } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import type { FlowDefinition } from "../contracts/flow-definition.js";
import type { CredentialsService } from "../credentials/credentials.service.js";
import { temporalRefusal } from "../engine/temporal-start.js";
import { DomainError } from "../errors.js";
import { checkDefinition } from "../flows/definition-checks.js";
import type { NodeRegistry } from "../nodes/registry.js";
import type { RerunCaller } from "../runs/start/rerun-run.js";
import { pinFlow } from "../runs/start/pinned-flow.js";
import { pinDraft } from "../runs/start/replay-run.js";
import { BulkRerunsBusy, driveOperation, SelectionEmpty, type OperationsDeps } from "./bulk-reruns.js";

export interface ReplayDeps extends OperationsDeps {
  nodes: NodeRegistry;
  credentials: Pick<CredentialsService, "checkReferences">;
}

/** The runs a replay replays: the flow's last N ended runs, or named ones. */
export type ReplaySelection = { last: number } | { ids: string[] };

/** What a replay asks, as its operation keeps it (`request`). */
export interface ReplayOperationRequest {
  flowId: string;
  /** The draft (checked), or the flow's current definition when none was given. */
  definition: FlowDefinition;
  /** The flow's version the draft was replayed on (its current one when asked for). */
  version: number;
  /** A draft was given (else the current version is replayed). */
  draft: boolean;
  selection: ReplaySelection;
}

export class ReplayTooLarge extends DomainError {
  override name = "ReplayTooLarge";
  constructor(max: number) {
    super("invalid", "replay_too_large", `A replay takes at most ${max} runs (REPLAY_MAX_RUNS)`, { max });
  }
}

/** The statement selecting the runs (their ids, in the order they started) a replay replays. */
function selectedRuns(workspaceId: string, flowId: string, selection: ReplaySelection): Prisma.Sql {
  if ("ids" in selection) {
    // Runs of other flows, running or test runs are items too: their replay skips them with the refusal's code.
    return Prisma.sql`
      SELECT id, started_at FROM runs WHERE workspace_id = ${workspaceId} AND id = ANY(${selection.ids}::text[])`;
  }
  return Prisma.sql`
    SELECT id, started_at FROM runs
    WHERE workspace_id = ${workspaceId} AND flow_id = ${flowId} AND status <> 'running' AND NOT test
    ORDER BY started_at DESC, id DESC LIMIT ${selection.last}`;
}

/**
 * Records the replay operation with its items and starts its workflow. FlowNotFound (404) for a
 * flow of another workspace, InvalidDefinition (400) for a draft a save would refuse,
 * ReplayTooLarge (400), SelectionEmpty (400), BulkRerunsBusy (429), before anything is recorded.
 */
export async function startReplay(
  deps: ReplayDeps,
  caller: RerunCaller,
  asked: { flowId: string; definition?: unknown; selection: ReplaySelection | { last?: undefined } },
) {
  const { prisma, clock, config } = deps;
  const { workspaceId } = caller;
  const max = config.REPLAY_MAX_RUNS;
  // No selection: the flow's last REPLAY_MAX_RUNS ended runs.
  const selection: ReplaySelection = "ids" in asked.selection ? asked.selection : { last: asked.selection.last ?? max };
  const request = { ...asked, selection };
  if (("ids" in selection ? selection.ids.length : selection.last) > max) throw new ReplayTooLarge(max);
  const current = await pinFlow(prisma, deps.nodes, { workspaceId, flowId: request.flowId });
  const definition =
    request.definition === undefined
      ? current.definition
      : await checkDefinition(deps, workspaceId, request.definition);
  // The draft runs here: a plan this installation cannot build is refused now (InvalidPlan).
  await pinDraft(deps, workspaceId, request.flowId, definition);
  const running = await prisma.operation.count({ where: { workspaceId, status: "running" } });
  if (running >= config.BULK_RERUNS_PER_WORKSPACE) throw new BulkRerunsBusy(config.BULK_RERUNS_PER_WORKSPACE);
  const stored: ReplayOperationRequest = {
    flowId: request.flowId,
    definition,
    version: current.version,
    draft: request.definition !== undefined,
    selection: request.selection,
  };
  const id = newId("op");
  const createdAt = clock.now();
  const [recorded] = await sqlQuery<{ total: number }>(
    prisma,
    Prisma.sql`
      WITH selected AS (${selectedRuns(workspaceId, request.flowId, request.selection)}),
      counted AS (SELECT count(*)::int AS total FROM selected),
      operation AS (
        INSERT INTO operations (id, workspace_id, kind, status, request, total, created_by, created_at, task_queue)
        SELECT ${id}, ${workspaceId}, 'replay', 'running', ${JSON.stringify(stored)}::jsonb, total, ${caller.by}, ${createdAt}, ${deps.config.TEMPORAL_TASK_QUEUE}
        FROM counted WHERE total >= 1
        RETURNING id
      ), items AS (
        INSERT INTO operation_items (operation_id, idx, run_id, status)
        SELECT operation.id, (row_number() OVER (ORDER BY selected.started_at, selected.id))::int, selected.id, 'pending'
        FROM selected, operation
      )
      SELECT total FROM counted`,
  );
  const total = recorded?.total ?? 0;
  if (total === 0) throw new SelectionEmpty();
  try {
    await driveOperation(deps, { operationId: id, workspaceId, perSecond: config.BULK_RERUN_PER_SECOND });
  } catch (error) {
    await prisma.operation.deleteMany({ where: { id } });
    throw temporalRefusal("The replay did not start", error);
  }
  return { id, status: "running" as const, total, createdAt, version: current.version };
}
