// The run's bookkeeping that the runFlow workflow asks of the worker besides the node types'
// activities: local nodes' rows, handled failures, the end of a step that waited in the workflow
// (a delay, a loop, a wait), the run's end, and a loop's items it will not start.
import type {
  CancelUnstartedRunsInput,
  CompleteStepInput,
  FinalizeRunInput,
  RecordHandledFailureInput,
  RecordStepsInput,
} from "../../../core/contracts/run-flow.js";
import type { NodeActivityParts } from "./node-parts.js";
import type { FinishWaitInput } from "../../../core/contracts/waits.js";
import { finishWaitRecord } from "../../../core/waits/wait-records.js";
import { cancelChildRuns } from "../../../core/runs/start/child-runs.js";
import { endRunRecord } from "../../../core/runs/records/run-ends.js";

/** Writes the rows of local nodes' successes (see NodeActivityResult.unwritten). */
export async function recordSteps({ steps }: Pick<NodeActivityParts, "steps">, input: RecordStepsInput): Promise<void> {
  await steps.record(steps.successes(input.runId, input.steps));
}

/** Records a node's failure as handled per its on_error, on its last attempt's row. */
export async function recordHandledFailure(
  { steps }: Pick<NodeActivityParts, "steps">,
  input: RecordHandledFailureInput,
): Promise<void> {
  await steps.handled(input);
}

/** Ends a step that waited in the workflow (delay, loop); returns the output as it travels. */
export async function completeStep(
  { steps, blobs }: Pick<NodeActivityParts, "steps" | "blobs">,
  input: CompleteStepInput,
): Promise<unknown> {
  const output = await blobs.offload(input.runId, input.nodeId, input.output);
  await steps.complete({ runId: input.runId, nodeId: input.nodeId }, input.attempt, output);
  return output;
}

/**
 * Closes a wait (decided, expired) and ends its step with the node's output or error; returns
 * the output as it travels (a reference when large).
 */
export async function finishWait(
  { prisma, clock, seal, blobs }: Pick<NodeActivityParts, "prisma" | "clock" | "seal" | "blobs">,
  input: FinishWaitInput,
): Promise<unknown> {
  if (input.step.status !== "success") {
    await finishWaitRecord({ prisma, clock, seal }, input);
    return null;
  }
  const output = await blobs.offload(input.runId, input.nodeId, input.step.output);
  await finishWaitRecord({ prisma, clock, seal }, { ...input, step: { ...input.step, output } });
  return output;
}

/** Ends the run once; returns its output as it travels (a reference when large). */
export async function finalizeRun(
  {
    prisma,
    clock,
    blobs,
    metrics,
    runEnded,
  }: Pick<NodeActivityParts, "prisma" | "clock" | "blobs" | "metrics" | "runEnded">,
  input: FinalizeRunInput,
): Promise<unknown> {
  const ended = await endRunRecord({ prisma, clock, blobs }, input);
  if (ended) {
    metrics?.runsFinished.inc({ status: input.status });
    runEnded?.(ended);
  }
  if (input.status !== "success") {
    const reason = `Not run: its parent run ${input.runId} ended (${input.status}) first`;
    await cancelChildRuns({ prisma, clock, blobs }, input.runId, reason);
  }
  return blobs.offload(input.runId, "$run", input.output ?? null);
}

/** A loop's items it will not start (an item failed, or the run is being cancelled), ended as cancelled. */
export async function cancelUnstartedRuns(
  { prisma, clock, blobs }: Pick<NodeActivityParts, "prisma" | "clock" | "blobs">,
  input: CancelUnstartedRunsInput,
): Promise<void> {
  await cancelChildRuns({ prisma, clock, blobs }, input.runId, input.reason, input.runIds);
}
