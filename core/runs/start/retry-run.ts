import type { RunFlowInput } from "../../contracts/run-flow.js";
import type { NodeRegistry } from "../../nodes/registry.js";
import { actorId, type Actor } from "../../workspaces/actor.js";
import { DomainError } from "../../errors.js";
import { findRun, pinnedRun, type RunReadDeps } from "../reads/run-reads.js";
import { pinFlow } from "./pinned-flow.js";
import type { createRunStarter } from "./run-starter.js";

/** Only failed or cancelled runs are retried. */
export class RunNotRetryable extends DomainError {
  override name = "RunNotRetryable";
  constructor(status: string) {
    super("conflict", "run_not_retryable", `The run is ${status}: only failed or cancelled runs are retried`);
  }
}

/** The flow changed between pinning the version a retry runs and recording its run. */
export class RetryRaced extends DomainError {
  override name = "RetryRaced";
  constructor() {
    super("conflict", "conflict", "The flow changed while the run started: try again");
  }
}

export interface RetryRunDeps extends RunReadDeps {
  nodes: NodeRegistry;
  starter: Pick<ReturnType<typeof createRunStarter>, "launch">;
}

/** A new run of the same version and input that takes over the nodes that succeeded. */
export async function retryRun(deps: RetryRunDeps, actor: Actor, runId: string) {
  const { prisma } = deps;
  const workspaceId = actor.workspace.workspaceId;
  const original = await findRun(deps, workspaceId, runId);
  if (original.status === "running" || original.status === "success") {
    throw new RunNotRetryable(original.status);
  }
  const flow = await pinFlow(prisma, deps.nodes, {
    workspaceId,
    flowId: original.flowId,
    version: original.version,
  });
  const { input } = (await pinnedRun(deps, workspaceId, runId))!;
  const run = await deps.starter.launch(flow, {
    input: input as Record<string, unknown>,
    trigger: "retry",
    createdBy: actorId(actor),
    retryOf: runId,
    reuse: await reusedSteps(deps, runId),
    anyVersion: true,
  });
  if (!run) throw new RetryRaced();
  return run;
}

/** The nodes that succeeded in the run, with their outputs: the retry's workflow never runs them again. */
async function reusedSteps({ prisma, seal }: RunReadDeps, runId: string): Promise<NonNullable<RunFlowInput["reuse"]>> {
  const succeeded = await prisma.runStep.findMany({
    where: { runId, status: "success" },
    orderBy: { attempt: "asc" },
    select: { nodeId: true, output: true, branch: true },
  });
  const reuse: NonNullable<RunFlowInput["reuse"]> = {};
  for (const step of succeeded) {
    reuse[step.nodeId] = { output: seal.open(step.output), ...(step.branch ? { branch: step.branch } : {}) };
  }
  return reuse;
}
