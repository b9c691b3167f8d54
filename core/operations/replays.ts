// Asking for a replay against a draft (POST /api/flows/{id}/replay): the draft checked as a save
// checks a definition (the flow's current one when none is given), the selection (the flow's last
// N ended runs, or ids) resolved into the operation's items in the statement that records it (kind
// `replay`), then its workflow started: the bulk rerun's, whose passes replay each item once
// (rerun-passes.ts, core/runs/start/replay-run.ts). Limits: REPLAY_MAX_RUNS runs (400 beyond),
// BULK_RERUNS_PER_WORKSPACE operations running (429).
import { Prisma } from "../../lib/db.js";
import type { FlowDefinition } from "../contracts/flow-definition.js";
import type { CredentialsService } from "../credentials/credentials.service.js";
import { DomainError } from "../errors.js";
import { checkDefinition } from "../flows/definition-checks.js";
import type { NodeRegistry } from "../nodes/registry.js";
import type { RerunCaller } from "../runs/start/rerun-run.js";
import { pinFlow } from "../runs/start/pinned-flow.js";
import { pinDraft } from "../runs/start/replay-run.js";
import { recordAndDriveOperation, type OperationsDeps } from "./bulk-reruns.js";

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
    WHERE workspace_id = ${workspaceId} AND flow_id = ${flowId} AND status NOT IN ('running', 'queued') AND NOT test
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
  const { prisma, config } = deps;
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
  const stored: ReplayOperationRequest = {
    flowId: request.flowId,
    definition,
    version: current.version,
    draft: request.definition !== undefined,
    selection: request.selection,
  };
  const { id, total, createdAt } = await recordAndDriveOperation(deps, {
    workspaceId,
    by: caller.by,
    kind: "replay",
    request: JSON.stringify(stored),
    selected: selectedRuns(workspaceId, request.flowId, request.selection),
    refused: "The replay did not start",
  });
  return { id, status: "running" as const, total, createdAt, version: current.version };
}
