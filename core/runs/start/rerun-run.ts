// A rerun: a new run of an ended one, from a node (or from its failed node: a retry, or from the
// start), on the version that run pinned or on the flow's latest, with the trigger's input or
// carried outputs replaced. The nodes it carries over (carry-plan.ts) are never run again: their
// recorded outputs are handed to the new run's workflow, which records them as its own steps.
import type { RunFlowInput } from "../../contracts/run-flow.js";
import { isBlobRef, runHasEnded } from "../../contracts/run-flow.js";
import type { NodeRegistry } from "../../nodes/registry.js";
import { DomainError, domainErrorClass } from "../../errors.js";
import { DuplicateRunKey, type RerunRecord } from "../records/run-records.js";
import { findRun, pinnedRun, type RunReadDeps } from "../reads/run-reads.js";
import { carryPlan, type CarryProblem, type RerunFrom } from "./carry-plan.js";
import { pinFlow } from "./pinned-flow.js";
import type { StartedRun } from "./launch.js";
import { IdempotencyKeyReused, type createRunStarter } from "./run-starter.js";

export type { RerunFrom } from "./carry-plan.js";

/** Only failed or cancelled runs are retried. */
export class RunNotRetryable extends DomainError {
  override name = "RunNotRetryable";
  constructor(status: string) {
    super("conflict", "run_not_retryable", `The run is ${status}: only failed or cancelled runs are retried`);
  }
}

/** A run still running (or waiting) is not rerun: it has not recorded what a rerun carries. */
export const RunNotEnded = domainErrorClass(
  "RunNotEnded",
  "conflict",
  "run_not_ended",
  "The run has not ended (it is running or waiting): cancel it or wait for its end",
);

/** A replay's test run ran a draft: it is not rerun (replay again instead). */
export const RunIsTest = domainErrorClass(
  "RunIsTest",
  "conflict",
  "run_is_test",
  "The run is a test run (a replay against a draft): replay again instead",
);

/** The version the run pinned is gone (its flow was deleted and made anew, say): nothing to match against. */
export const RunVersionGone = domainErrorClass(
  "RunVersionGone",
  "conflict",
  "run_version_gone",
  "The version this run ran is gone: it cannot be rerun",
);

/** The target version does not fit what the rerun would carry over (carry-plan.ts). */
export class RerunDoesNotFit extends DomainError {
  override name = "RerunDoesNotFit";
  constructor(problem: CarryProblem, version: number) {
    const named = problem.nodes.join(", ");
    super(
      "conflict",
      problem.kind === "from_node_missing" ? "rerun_node_missing" : "rerun_version_mismatch",
      problem.kind === "from_node_missing"
        ? `Version ${version} has no node ${named}: choose a node it has`
        : `Nodes whose recorded outputs this rerun would carry over are gone from version ${version} or have another type there: ${named}; rerun from an earlier node`,
      { nodes: problem.nodes, version },
    );
  }
}

/** Outputs given for nodes the rerun does not carry over (they run again), or in a form a run cannot take. */
export class RerunOutputsInvalid extends DomainError {
  override name = "RerunOutputsInvalid";
  constructor(nodes: string[], why: "not_carried" | "stored_reference") {
    super(
      "invalid",
      "invalid_rerun_outputs",
      why === "not_carried"
        ? `outputs names nodes this rerun runs again (or that the version lacks), not carried ones: ${nodes.join(", ")}`
        : `outputs of ${nodes.join(", ")} are references to stored data ({"$blob": …}): give the value itself`,
      { nodes },
    );
  }
}

/** The flow changed between pinning the version a rerun runs and recording its run. */
export const RerunRaced = domainErrorClass(
  "RerunRaced",
  "conflict",
  "conflict",
  "The flow changed while the run started: try again",
);

export interface RerunRequest {
  from: RerunFrom;
  /** The version the original run pinned, or the flow's latest (a fix saved since). */
  version: "run" | "latest";
  /** Replaces the trigger's input (the original run's input when absent). */
  input?: Record<string, unknown>;
  /** Replaces the recorded outputs of carried-over nodes (correcting what the next node receives). */
  outputs?: Record<string, unknown>;
  /** A bulk rerun's operation: its id recorded, and one rerun per run and operation (the key). */
  operationId?: string;
  idempotencyKey?: string;
  /** The request that used the key (lib/request-fingerprint.ts): a repeat answers the run only for it. */
  requestFingerprint?: string;
}

/** Who reruns: the workspace, and the user or API token (recorded as the rerun's `by`). */
export interface RerunCaller {
  workspaceId: string;
  by: string | null;
}

export interface RerunRunDeps extends RunReadDeps {
  nodes: NodeRegistry;
  starter: Pick<ReturnType<typeof createRunStarter>, "launch">;
}

type Carried = NonNullable<RunFlowInput["reuse"]>;

/** What succeeded in the run: each node's output (the last successful attempt's) and branch. */
export async function succeededSteps({ prisma, seal }: RunReadDeps, runId: string): Promise<Carried> {
  const succeeded = await prisma.runStep.findMany({
    where: { runId, status: "success" },
    orderBy: { attempt: "asc" },
    select: { nodeId: true, output: true, branch: true },
  });
  const outputs: Carried = {};
  for (const step of succeeded) {
    outputs[step.nodeId] = { output: seal.open(step.output), ...(step.branch ? { branch: step.branch } : {}) };
  }
  return outputs;
}

/** The carried nodes' recorded outputs, with the overrides put in their place. */
function carriedOutputs(recorded: Carried, carried: string[], overrides: Record<string, unknown> = {}): Carried {
  const strangers = Object.keys(overrides).filter((id) => !carried.includes(id));
  if (strangers.length > 0) throw new RerunOutputsInvalid(strangers, "not_carried");
  const references = Object.keys(overrides).filter((id) => isBlobRef(overrides[id]));
  if (references.length > 0) throw new RerunOutputsInvalid(references, "stored_reference");
  return Object.fromEntries(
    carried.map((id) => {
      const output = id in overrides ? overrides[id] : recorded[id]!.output;
      return [id, { ...recorded[id]!, output }];
    }),
  );
}

/**
 * Reruns the ended run `runId` as a new run (trigger `rerun`, or `retry` for a retry): it records
 * what it reran, from where, on which version, and who with which overrides.
 */
export async function rerunRun(
  deps: RerunRunDeps,
  caller: RerunCaller,
  runId: string,
  request: RerunRequest,
  { trigger = "rerun" }: { trigger?: "rerun" | "retry" } = {},
): Promise<StartedRun & { version: number }> {
  const { workspaceId } = caller;
  const original = await findRun(deps, workspaceId, runId);
  if (trigger === "retry" && (!runHasEnded(original.status) || original.status === "success")) {
    throw new RunNotRetryable(original.status);
  }
  if (!runHasEnded(original.status)) throw new RunNotEnded();
  if (original.trigger === "replay") throw new RunIsTest();
  const pinned = (await pinnedRun(deps, workspaceId, runId))!;
  if (!pinned.definition) throw new RunVersionGone();
  const flow = await pinFlow(deps.prisma, deps.nodes, {
    workspaceId,
    flowId: original.flowId,
    ...(request.version === "run" ? { version: original.version } : {}),
  });
  const recorded = await succeededSteps(deps, runId);
  const plan = carryPlan({
    original: pinned.definition,
    target: flow.definition,
    succeeded: new Set(Object.keys(recorded)),
    from: request.from,
    newInput: request.input !== undefined,
  });
  if ("problem" in plan) throw new RerunDoesNotFit(plan.problem, flow.version);
  const reuse = carriedOutputs(recorded, plan.carried, request.outputs);
  const fromNode = typeof request.from === "object" ? request.from.node : null;
  const record: RerunRecord = {
    from: typeof request.from === "object" ? "node" : request.from,
    version: request.version,
    ofVersion: original.version,
    carried: plan.carried,
    by: caller.by,
    overrides:
      request.input || request.outputs
        ? {
            ...(request.input ? { input: request.input } : {}),
            ...(request.outputs ? { outputs: request.outputs } : {}),
          }
        : null,
    ...(request.operationId ? { operationId: request.operationId } : {}),
  };
  const run = await deps.starter.launch(flow, {
    input: request.input ?? (pinned.input as Record<string, unknown>),
    trigger,
    createdBy: caller.by ?? undefined,
    ...(trigger === "retry" ? { retryOf: runId } : {}),
    rerun: { of: runId, fromNode, record },
    reuse,
    idempotencyKey: request.idempotencyKey,
    requestFingerprint: request.requestFingerprint,
    // On its own version the run is rerun whatever the flow's current one; on the latest, only if
    // the flow is still at the version pinned above.
    anyVersion: request.version === "run",
  });
  if (!run) throw new RerunRaced();
  return { ...run, version: flow.version };
}

/** A retry: a rerun of a failed or cancelled run from its failed node, on the version it ran. */
export function retryRun(deps: RerunRunDeps, caller: RerunCaller, runId: string): Promise<StartedRun> {
  return rerunRun(deps, caller, runId, { from: "failed", version: "run" }, { trigger: "retry" });
}

type Rerun = StartedRun & { version: number };

/**
 * A rerun asked with an Idempotency-Key (POST /api/runs/{id}/rerun): a repeat of the same request
 * answers the run the key started (`replayed`) rather than rerunning twice; another request with
 * the key is refused with nothing of that run. Without a key, a plain rerun.
 */
export async function rerunKeyed(
  deps: RerunRunDeps,
  caller: RerunCaller,
  runId: string,
  request: RerunRequest,
  idempotency?: { key: string; requestFingerprint: string },
): Promise<{ run: Rerun; replayed: boolean }> {
  if (!idempotency) return { run: await rerunRun(deps, caller, runId, request), replayed: false };
  const earlier = () => runOfKey(deps, caller.workspaceId, idempotency);
  const found = await earlier();
  if (found) return { run: found, replayed: true };
  try {
    const keyed = { ...request, idempotencyKey: idempotency.key, requestFingerprint: idempotency.requestFingerprint };
    return { run: await rerunRun(deps, caller, runId, keyed), replayed: false };
  } catch (error) {
    if (!(error instanceof DuplicateRunKey)) throw error;
    // A concurrent request with the same key recorded its run first: answer with it.
    const winner = await earlier();
    if (winner) return { run: winner, replayed: true };
    throw error;
  }
}

/** The run recorded under the key, for the same request; IdempotencyKeyReused for another one. */
async function runOfKey(
  { prisma }: RerunRunDeps,
  workspaceId: string,
  { key, requestFingerprint }: { key: string; requestFingerprint: string },
): Promise<Rerun | undefined> {
  const run = await prisma.run.findUnique({
    where: { workspaceId_idempotencyKey: { workspaceId, idempotencyKey: key } },
    select: {
      id: true,
      flowId: true,
      status: true,
      startedAt: true,
      retryOf: true,
      rerunOf: true,
      version: true,
      requestFingerprint: true,
    },
  });
  if (!run) return undefined;
  if (run.requestFingerprint === null || run.requestFingerprint !== requestFingerprint) {
    throw new IdempotencyKeyReused();
  }
  const { requestFingerprint: _fingerprint, ...started } = run;
  return started;
}
