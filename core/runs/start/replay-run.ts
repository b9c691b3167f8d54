// A replay: a recorded run of a flow run again on a draft of that flow, as a test run. Its trigger
// input is the recorded run's; every node that reaches outside the run (NodeDefinition.reachesOutside)
// is not executed but given the recorded run's output for the node of the same id (and type), or,
// with none recorded, fails the run (replay_no_recording); every other node runs for real. A test
// run fires no run event (so no outgoing webhook and no error flow), counts in no quota and is
// never a hook's run. The comparison with the recorded run is replay-compare.ts's.
import type { FlowDefinition } from "../../contracts/flow-definition.js";
import { runHasEnded, type RunFlowInput } from "../../contracts/run-flow.js";
import { DomainError, InvalidPlan } from "../../errors.js";
import { buildRunPlan } from "../../flows/plan.js";
import { reachesOutside } from "../../nodes/define-node.js";
import type { NodeRegistry } from "../../nodes/registry.js";
import { findRun, pinnedRun } from "../reads/run-reads.js";
import type { StartedRun } from "./launch.js";
import { pinFlow, type PinnedFlow } from "./pinned-flow.js";
import { RerunRaced, RunNotEnded, succeededSteps, type RerunCaller, type RerunRunDeps } from "./rerun-run.js";

/** Only runs of the replayed flow, and not test runs themselves, are replayed. */
export class RunNotReplayable extends DomainError {
  override name = "RunNotReplayable";
  constructor(why: "other_flow" | "test_run") {
    super(
      "conflict",
      why === "other_flow" ? "replay_other_flow" : "replay_of_test_run",
      why === "other_flow" ? "The run is not a run of this flow" : "The run is itself a test run (a replay)",
    );
  }
}

export interface ReplayRequest {
  flowId: string;
  /** The draft, already checked as a save checks a definition. */
  definition: FlowDefinition;
  operationId?: string;
  idempotencyKey?: string;
}

/**
 * The draft as a run pins it: the flow's current name and version, the draft's definition and
 * plan. The flow must be active unless `active` is false (a test run of a draft).
 */
export async function pinDraft(
  { prisma, nodes }: { prisma: object; nodes: NodeRegistry },
  workspaceId: string,
  flowId: string,
  definition: FlowDefinition,
  { active = true, version }: { active?: boolean; version?: number } = {},
): Promise<PinnedFlow> {
  const current = await pinFlow(prisma, nodes, { workspaceId, flowId, version }, { active });
  try {
    return { ...current, definition, plan: buildRunPlan(definition, nodes) };
  } catch (error) {
    throw new InvalidPlan((error as Error).message);
  }
}

/**
 * What the draft's nodes that reach outside are given: the recorded output of the node of the
 * same id and type, or nothing (the node fails the replay, never calls out).
 */
export function givenOutputs(
  nodes: NodeRegistry,
  draft: FlowDefinition,
  recordedTypes: ReadonlyMap<string, string>,
  recorded: NonNullable<RunFlowInput["reuse"]>,
): NonNullable<RunFlowInput["given"]> {
  const given: NonNullable<RunFlowInput["given"]> = {};
  for (const node of draft.nodes) {
    const definition = nodes.get(node.type);
    // A type this installation lacks fails the plan before; a trigger's output is the run's input.
    if (!definition || definition.kind === "trigger" || !reachesOutside(definition)) continue;
    const step = recordedTypes.get(node.id) === node.type ? recorded[node.id] : undefined;
    given[node.id] = step ? { output: step.output, ...(step.branch ? { branch: step.branch } : {}) } : {};
  }
  return given;
}

/** Replays the ended run `runId` of the flow on the draft: a new test run (trigger `replay`). */
export async function replayRun(
  deps: RerunRunDeps,
  caller: RerunCaller,
  runId: string,
  request: ReplayRequest,
): Promise<StartedRun> {
  const { workspaceId } = caller;
  const original = await findRun(deps, workspaceId, runId);
  if (original.flowId !== request.flowId) throw new RunNotReplayable("other_flow");
  if (original.trigger === "replay") throw new RunNotReplayable("test_run");
  if (!runHasEnded(original.status)) throw new RunNotEnded();
  const pinned = (await pinnedRun(deps, workspaceId, runId))!;
  const flow = await pinDraft(deps, workspaceId, request.flowId, request.definition);
  const recordedTypes = new Map((pinned.definition?.nodes ?? []).map((node) => [node.id, node.type]));
  const recorded = await succeededSteps(deps, runId);
  const run = await deps.starter.launch(flow, {
    input: pinned.input as Record<string, unknown>,
    trigger: "replay",
    createdBy: caller.by ?? undefined,
    given: givenOutputs(deps.nodes, request.definition, recordedTypes, recorded),
    test: true,
    idempotencyKey: request.idempotencyKey,
    // The draft is no saved version: the run records the flow's version it was drafted on.
    anyVersion: true,
  });
  if (!run) throw new RerunRaced();
  return run;
}
