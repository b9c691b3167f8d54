// One attempt of a step that runs at once: recorded as running if it lasts (never for instant
// nodes), heartbeating so that a lost worker or a cancellation is noticed, then recorded as
// succeeded or failed. A local node's success is not written here: the workflow keeps it and
// hands it to the next write (NodeActivityResult.unwritten), unless it ends the run.
import { Context } from "@temporalio/activity";
import type { NodeActivityInput, NodeActivityResult } from "../../../core/contracts/run-flow.js";
import { endRunRecord } from "../../../core/runs/records/run-ends.js";
import {
  type NodeActivityParts,
  recordWhenDatabaseAnswers,
  type StepEnd,
  stepErrorOf,
  type StepKey,
  toFailure,
} from "./node-parts.js";
import type { ItemsWatch } from "./node-items.js";

/** How often a running node activity heartbeats (the worker sends them on at this pace too). */
export const HEARTBEAT_INTERVAL_MS = 5000;
// A step is recorded as running once it has run this long; a quicker one is recorded once, at
// its end, with its start time: half the writes for most nodes, and the step log still shows
// every node that runs for a noticeable time while it runs.
const STEP_RUNNING_RECORD_DELAY_MS = 250;

type AttemptParts = Pick<NodeActivityParts, "prisma" | "clock" | "steps" | "blobs" | "metrics" | "runEnded">;

/** Which attempt this is, where it runs, and when it started. */
interface AttemptOf {
  key: StepKey;
  number: number;
  local: boolean;
  startedAt: Date;
}

export type AttemptBody = (context: {
  attempt: number;
  signal: AbortSignal;
  /** What the attempt's heartbeats carry (a per-item node's progress). */
  watch: ItemsWatch;
}) => Promise<NodeActivityResult>;

export async function runAttempt(
  parts: AttemptParts,
  args: NodeActivityInput,
  options: { instant: boolean },
  body: AttemptBody,
): Promise<NodeActivityResult> {
  const { clock, steps, blobs, metrics } = parts;
  const context = Context.current();
  const attempt: AttemptOf = {
    key: { runId: args.runId, nodeId: args.nodeId, type: args.type },
    number: context.info.attempt,
    local: context.info.isLocal,
    startedAt: clock.now(),
  };
  // Rows of earlier local nodes, written like this node's own success: off the critical path.
  if (args.carried?.length) steps.recordLater(steps.successes(args.runId, args.carried));
  const progress: ItemsWatch = {};
  const watch = watchAttempt(parts, attempt, options.instant, progress);
  const observe = (status: string) =>
    metrics?.nodeDuration.observe(
      { type: args.type, status },
      (clock.now().getTime() - attempt.startedAt.getTime()) / 1000,
    );
  try {
    const result = await body({ attempt: attempt.number, signal: context.cancellationSignal, watch: progress });
    const output = await blobs.offload(args.runId, args.nodeId, result.output);
    await watch.settle();
    observe("success");
    return await recordSuccess(parts, args, attempt, output, result.branch);
  } catch (error) {
    const failure = toFailure(error);
    await watch.settle();
    await recordWhenDatabaseAnswers(() =>
      steps.fail(attempt.key, attempt.number, attempt.startedAt, stepErrorOf(failure)),
    );
    observe("failed");
    throw failure;
  }
}

/**
 * While the attempt runs: its running row once it lasts, and heartbeats unless it is local (a
 * local activity cannot heartbeat: the worker running it runs the workflow too). `settle` stops
 * both and waits for the running row.
 */
function watchAttempt(
  { steps }: Pick<NodeActivityParts, "steps">,
  attempt: AttemptOf,
  instant: boolean,
  progress: ItemsWatch,
): { settle: () => Promise<void> } {
  let runningRecorded: Promise<unknown> | undefined;
  const recordRunning = instant
    ? undefined
    : setTimeout(() => {
        runningRecorded = steps.start(attempt.key, attempt.number, attempt.startedAt).catch((error: unknown) => error);
      }, STEP_RUNNING_RECORD_DELAY_MS);
  const context = Context.current();
  const heartbeat = attempt.local
    ? undefined
    : setInterval(() => context.heartbeat(progress.progress), HEARTBEAT_INTERVAL_MS);
  return {
    async settle() {
      clearTimeout(recordRunning);
      clearInterval(heartbeat);
      await runningRecorded;
    },
  };
}

/** The success's record: kept by the workflow (local), written later, or written with the run's end. */
async function recordSuccess(
  parts: AttemptParts,
  args: NodeActivityInput,
  attempt: AttemptOf,
  output: unknown,
  branch: string | undefined,
): Promise<NodeActivityResult> {
  const { clock, steps } = parts;
  const branched = branch === undefined ? {} : { branch };
  const stepOf = (finishedAt: Date) => ({
    attempt: attempt.number,
    startedAt: attempt.startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
  });
  if (attempt.local && !args.endsRun) return { output, ...branched, step: stepOf(clock.now()), unwritten: true };
  const stepEnd = steps.success(attempt.key, attempt.number, attempt.startedAt, output, branch);
  if (args.endsRun) return { output, ...branched, ...(await endRunWithStep(parts, args, output, stepEnd)) };
  // The step row is written while Temporal moves on to the next node: the commit is off the
  // run's critical path, and the workflow keeps the record until the run's end confirms it.
  steps.recordLater(stepEnd);
  return { output, ...branched, step: stepOf(stepEnd.finishedAt) };
}

/** The last node's success ends the run in the same statement as its step (NodeActivityInput.endsRun). */
async function endRunWithStep(
  { prisma, clock, steps, blobs, metrics, runEnded }: AttemptParts,
  args: NodeActivityInput,
  output: unknown,
  stepEnd: StepEnd,
): Promise<{ runEnded?: true }> {
  const { written, ...recorded } = args.endsRun!;
  await steps.settled(args.runId);
  const ending = { runId: args.runId, status: "success" as const, output, ...recorded };
  const ended = await recordWhenDatabaseAnswers(() =>
    endRunRecord({ prisma, clock, blobs }, ending, { stepEnd, written }),
  );
  if (!ended) return {};
  metrics?.runsFinished.inc({ status: "success" });
  runEnded?.(ended);
  return { runEnded: true };
}
