import jsonata from "jsonata";
import { z } from "zod";
import { defineNode, type NodeEnv } from "../define-node.js";
import { NodeError } from "../node-error.js";

// JSONata evaluates on the worker's event loop in a chain of promise jobs that leaves no room for
// timers or I/O until it ends: hence a short time limit, 10 s at most.
const MAX_TIME_LIMIT_MS = 10_000;
/** Nested evaluations (each recursive call of a JSONata function takes a few). */
export const MAX_DEPTH = 2000;

const EVALUATE_ENTRY = Symbol.for("jsonata.__evaluate_entry");

interface JsonataFailure {
  code?: string;
  position?: number;
  token?: string;
  message?: string;
}

const isJsonataFailure = (error: unknown): error is JsonataFailure & { code: string } =>
  typeof error === "object" && error !== null && typeof (error as JsonataFailure).code === "string";

const where = (error: JsonataFailure) =>
  error.position === undefined ? `(${error.code})` : `(${error.code} at position ${error.position})`;

function evaluationFailure(error: unknown, timeLimitMs: number): NodeError {
  if (error instanceof NodeError) return error;
  if (!isJsonataFailure(error)) {
    // A JavaScript error from inside a function such as $pad (an impossible string length).
    return new NodeError(`The expression failed: ${error instanceof Error ? error.message : String(error)}`, {
      retryable: false,
    });
  }
  const details = { code: error.code, position: error.position, token: error.token };
  if (error.code === "D1012") {
    return new NodeError(`The expression exceeded its time limit of ${timeLimitMs} ms`, { retryable: false, details });
  }
  if (error.code === "D1011") {
    return new NodeError(
      `The expression exceeded its depth limit of ${MAX_DEPTH} nested evaluations (endless recursion?)`,
      { retryable: false, details },
    );
  }
  return new NodeError(`The expression failed: ${error.message} ${where(error)}`, { retryable: false, details });
}

/** A JavaScript function, or a JSONata one (an object holding its closure). */
const isFunction = (value: unknown) =>
  typeof value === "function" ||
  (typeof value === "object" && value !== null && ("_jsonata_lambda" in value || "_jsonata_function" in value));

/** The result as the next node sees it: plain JSON, functions left out; nothing becomes null. */
function toJson(result: unknown): unknown {
  if (result === undefined) return null;
  if (isFunction(result)) {
    throw new NodeError("The expression's result is a function, which has no JSON form", { retryable: false });
  }
  try {
    return JSON.parse(JSON.stringify(result, (_key, value: unknown) => (isFunction(value) ? undefined : value)));
  } catch (error) {
    throw new NodeError(`The expression's result cannot be turned into JSON: ${(error as Error).message}`, {
      retryable: false,
    });
  }
}

async function evaluate(source: string, input: unknown, timeLimitMs: number, env: NodeEnv): Promise<unknown> {
  let expression: jsonata.Expression;
  try {
    // JSONata's own guardrails check the deadline and the depth at every evaluation step: they
    // are what stops a runaway expression, since the timer below cannot fire until it yields.
    expression = jsonata(source, { timeout: timeLimitMs, stack: MAX_DEPTH });
  } catch (error) {
    const failure = error as JsonataFailure;
    throw new NodeError(`Invalid JSONata expression: ${failure.message} ${where(failure)}`, {
      retryable: false,
      details: { code: failure.code, position: failure.position, token: failure.token },
    });
  }
  expression.assign("run", {
    id: env.run.id,
    flow_id: env.run.flowId,
    node_id: env.run.nodeId,
    attempt: env.run.attempt,
  });
  let stopped = false;
  // Also called at every step: ends an evaluation whose run was cancelled before it started, or
  // one that lost the race below (only possible if it ever waits on something outside JSONata).
  expression.assign(EVALUATE_ENTRY as unknown as string, () => {
    if (stopped) throw new NodeError("The evaluation was stopped", { retryable: false });
    if (env.signal.aborted) throw new NodeError("The run was cancelled", { retryable: false });
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      stopped = true;
      reject(new NodeError(`The expression exceeded its time limit of ${timeLimitMs} ms`, { retryable: false }));
    }, timeLimitMs);
  });
  try {
    return await Promise.race([expression.evaluate(input), deadline]);
  } catch (error) {
    throw evaluationFailure(error, timeLimitMs);
  } finally {
    stopped = true;
    clearTimeout(timer);
  }
}

export const transformNode = defineNode({
  type: "transform",
  version: 1,
  name: "Transform",
  category: "data",
  description:
    "Evaluates a JSONata expression against the node's input; its result is the output. " +
    "$run holds the run's id, flow_id, node_id and attempt.",
  kind: "activity",
  execution: "local",
  config: z.object({
    expression: z
      .string()
      .min(1)
      .max(100_000)
      .meta({ label: "Expression", code: true, placeholder: '{ "total": $sum(items.(price * quantity)) }' }),
    time_limit_ms: z.number().int().min(1).max(MAX_TIME_LIMIT_MS).default(1000).meta({ label: "Time limit (ms)" }),
  }),
  async execute(input, config, env) {
    return toJson(await evaluate(config.expression, input, config.time_limit_ms, env));
  },
});
