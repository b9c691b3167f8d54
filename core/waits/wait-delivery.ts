// A decision handed to the workflow holding the wait (decideWaitUpdate), which answers once the
// wait's record is closed; its refusals, and a run that has ended, become the wait's errors.
import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from "@temporalio/client";
import { WAIT_REFUSALS, decideWaitUpdate, pendingWaitsQuery, type WaitDecisionInput } from "../contracts/waits.js";
import { temporalRefusal } from "../engine/temporal-start.js";
import type { WaitsContext } from "./wait-context.js";
import { WaitClosed, WaitForbidden, WaitNotFound, WaitStarting, WaitWrongMode } from "./wait-errors.js";
import { closedError, withRun, type WaitRow } from "./wait-views.js";

/** How long a decision may take to reach the run's workflow and be recorded. */
const DECISION_DEADLINE_MS = 15_000;
/** How long the run page waits for a workflow to show its resume tokens. */
const QUERY_DEADLINE_MS = 5_000;
/** A wait recorded a moment before its workflow took it in: tries, a pause apart. */
const STARTING_TRIES = 10;
const STARTING_PAUSE_MS = 200;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function findWait(
  { prisma }: Pick<WaitsContext, "prisma">,
  workspaceId: string,
  id: string,
): Promise<WaitRow> {
  const wait = await prisma.wait.findFirst({ where: { id, workspaceId }, include: withRun });
  if (!wait) throw new WaitNotFound();
  return wait;
}

/**
 * Hands a decision to the run's workflow and waits for its answer (the wait's record is closed
 * by then). Its refusals, and a run that has ended, become the wait's errors.
 */
export async function deliverDecision(context: WaitsContext, wait: WaitRow, input: WaitDecisionInput): Promise<void> {
  const { temporal } = context;
  // The workflow holding the wait: the run's, or the agent run's (their workflow ids are their ids).
  const handle = temporal.workflow.getHandle((wait.runId ?? wait.agentRunId)!);
  for (let tries = 1; ; tries++) {
    try {
      await temporal.withDeadline(Date.now() + DECISION_DEADLINE_MS, () =>
        handle.executeUpdate(decideWaitUpdate, { args: [input] }),
      );
      return;
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError && refusalType(error) === WAIT_REFUSALS.unknown) {
        if (tries < STARTING_TRIES) {
          await pause(STARTING_PAUSE_MS);
          continue;
        }
        throw new WaitStarting();
      }
      throw await decisionError(context, wait, error);
    }
  }
}

const refusalType = (error: WorkflowUpdateFailedError) => (error.cause as { type?: string } | undefined)?.type;

/** The wait's error for a decision its workflow did not take (but for a wait it does not know yet). */
async function decisionError(context: WaitsContext, wait: WaitRow, error: unknown): Promise<unknown> {
  if (error instanceof WorkflowUpdateFailedError) {
    const { type, message } = (error.cause ?? {}) as { type?: string; message?: string };
    if (type === WAIT_REFUSALS.decided) {
      // Another decision came first; its record may be a moment from closed.
      const now = await findWait(context, wait.workspaceId, wait.id);
      return now.status === "decided"
        ? closedError(now)
        : new WaitClosed("decided", message ?? "The wait was already decided");
    }
    if (type === WAIT_REFUSALS.expired) return new WaitClosed("expired", "The wait timed out");
    if (type === WAIT_REFUSALS.closed) return new WaitClosed("cancelled", "The wait was closed with its run");
    if (type === WAIT_REFUSALS.notAllowed) return new WaitForbidden();
    if (type === WAIT_REFUSALS.wrongAction) return new WaitWrongMode(message ?? "Wrong action for this wait");
    return error;
  }
  if (error instanceof WorkflowNotFoundError) {
    // The run ended (or its workflow is gone) before the decision reached it.
    const now = await findWait(context, wait.workspaceId, wait.id);
    return now.status === "pending" ? new WaitClosed("cancelled", "The wait's run has ended") : closedError(now);
  }
  if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
    return temporalRefusal("The decision was not taken", error.cause ?? error);
  }
  return temporalRefusal("The decision was not taken", error);
}

/** The resume tokens of a run's pending waits, from its workflow (none when it does not answer). */
export async function resumeTokens(
  { temporal, logger }: Pick<WaitsContext, "temporal" | "logger">,
  runId: string,
): Promise<Map<string, string>> {
  try {
    const pending = await temporal.withDeadline(Date.now() + QUERY_DEADLINE_MS, () =>
      temporal.workflow.getHandle(runId).query(pendingWaitsQuery),
    );
    return new Map(pending.flatMap((wait) => (wait.resumeToken ? [[wait.waitId, wait.resumeToken] as const] : [])));
  } catch (error) {
    logger.warn({ err: error, run_id: runId }, "the run's workflow did not show its resume tokens");
    return new Map();
  }
}
