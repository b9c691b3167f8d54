import { Context } from "@temporalio/activity";
import type { NodeActivityInput } from "../../../core/contracts/run-flow.js";
import { stepErrorOf, toFailure } from "./node-failures.js";
import type { NodeActivityParts } from "./node-parts.js";
import { recordWhenDatabaseAnswers } from "./record-when-database-answers.js";

/**
 * The start of a step that then waits in the workflow (delay, wait, loop, agent): recorded as running,
 * then `body`; a failure is recorded with the attempt before it is thrown.
 */
export async function waitingStep<T>(
  { clock, steps }: Pick<NodeActivityParts, "clock" | "steps">,
  args: NodeActivityInput,
  body: (attempt: number) => Promise<T>,
): Promise<T> {
  const number = Context.current().info.attempt;
  const key = { runId: args.runId, nodeId: args.nodeId, type: args.type };
  const startedAt = clock.now();
  await recordWhenDatabaseAnswers(() => steps.start(key, number, startedAt));
  try {
    return await body(number);
  } catch (error) {
    const failure = toFailure(error);
    await recordWhenDatabaseAnswers(() => steps.fail(key, number, startedAt, stepErrorOf(failure)));
    throw failure;
  }
}
