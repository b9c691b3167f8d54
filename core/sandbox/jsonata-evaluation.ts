// JSONata, as a sandbox process evaluates it (jsonata.process.ts) for the transform node. JSONata
// can recurse and loop without bound, and some of its built-ins run long without checking its
// deadline (a backtracking regular expression, $sort of a huge array), so it never runs on an event
// loop that serves anything else: a runaway holds only its process, which the pool terminates.
import jsonata from "jsonata";
import {
  JSONATA_MAX_DEPTH,
  JSONATA_MAX_RESULT_CHARS,
  JsSandboxError,
  noOutput,
  timeLimitMessage,
  type JsSandboxFailure,
} from "./js-sandbox.contract.js";

/** One evaluation, as it reaches the process. */
export interface JsonataTask {
  expression: string;
  inputJson: string;
  bindings?: Record<string, unknown>;
  timeLimitMs: number;
  /**
   * The input is an array of items, each evaluated on its own (with `$item_index` from
   * `firstIndex`) within `timeLimitMs`: the result is the JSON array of their outcomes (EachJson).
   */
  each?: { firstIndex: number };
}

/** One item's outcome in an `each` task's result. */
export type EachJson =
  { value: unknown } | { failure: JsSandboxFailure; message: string; details?: Record<string, unknown> };

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

const fail = (failure: JsSandboxFailure, message: string, error?: JsonataFailure) =>
  new JsSandboxError(
    failure,
    message,
    noOutput(),
    error && { code: error.code, position: error.position, token: error.token },
  );

function evaluationFailure(error: unknown, timeLimitMs: number): JsSandboxError {
  if (!isJsonataFailure(error)) {
    // A JavaScript error from inside a function such as $pad (an impossible string length).
    return fail("thrown", `The expression failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (error.code === "D1012") return fail("time_limit", timeLimitMessage({ timeLimitMs }, "expression"), error);
  if (error.code === "D1011") {
    const message = `The expression exceeded its depth limit of ${JSONATA_MAX_DEPTH} nested evaluations (endless recursion?)`;
    return fail("stack_limit", message, error);
  }
  return fail("thrown", `The expression failed: ${error.message} ${where(error)}`, error);
}

// Flows run the same few expressions again and again: the process keeps the latest ones parsed.
const KEPT_EXPRESSIONS = 64;
const parsed = new Map<string, jsonata.Expression>();

/** The parsed expression; JSONata's guardrails check the deadline and the depth at every step. */
function parse(source: string, timeLimitMs: number): jsonata.Expression {
  const key = `${timeLimitMs}:${source}`;
  const kept = parsed.get(key);
  if (kept) {
    parsed.delete(key);
    parsed.set(key, kept);
    return kept;
  }
  let expression: jsonata.Expression;
  try {
    expression = jsonata(source, { timeout: timeLimitMs, stack: JSONATA_MAX_DEPTH });
  } catch (error) {
    const failure = error as JsonataFailure;
    throw fail("syntax", `Invalid JSONata expression: ${failure.message} ${where(failure)}`, failure);
  }
  parsed.set(key, expression);
  if (parsed.size > KEPT_EXPRESSIONS) parsed.delete(parsed.keys().next().value!);
  return expression;
}

/** A JavaScript function, or a JSONata one (an object holding its closure). */
const isFunction = (value: unknown) =>
  typeof value === "function" ||
  (typeof value === "object" && value !== null && ("_jsonata_lambda" in value || "_jsonata_function" in value));

/** The result as the next node sees it, as JSON text: functions left out, nothing is null. */
function resultJson(result: unknown): string {
  if (result === undefined) return "null";
  if (isFunction(result)) throw fail("result", "The expression's result is a function, which has no JSON form");
  let json: string;
  try {
    json = JSON.stringify(result, (_key, value: unknown) => (isFunction(value) ? undefined : value));
  } catch (error) {
    throw fail("result", `The expression's result cannot be turned into JSON: ${(error as Error).message}`);
  }
  // Parsing it is the caller's work, on its own event loop: that cost stays bounded.
  if (json.length > JSONATA_MAX_RESULT_CHARS) {
    const mb = JSONATA_MAX_RESULT_CHARS / 1024 / 1024;
    throw fail("result", `The expression's result is larger than ${mb} MB as JSON`);
  }
  return json;
}

/**
 * Each item of the input (a JSON array) on its own: the outcomes as JSON text, `{"value": …}` or
 * the item's failure. A syntax error fails the whole task, as it would fail every item.
 */
async function evaluateEachOnJson(task: JsonataTask & { each: { firstIndex: number } }): Promise<string> {
  const expression = parse(task.expression, task.timeLimitMs);
  const items = JSON.parse(task.inputJson) as unknown[];
  const parts: string[] = [];
  for (const [at, item] of items.entries()) {
    try {
      let result: unknown;
      try {
        result = await expression.evaluate(item, { ...task.bindings, item_index: task.each.firstIndex + at });
      } catch (error) {
        throw evaluationFailure(error, task.timeLimitMs);
      }
      parts.push(`{"value":${resultJson(result)}}`);
    } catch (error) {
      if (!(error instanceof JsSandboxError)) throw error;
      const { failure, message, details } = error;
      parts.push(JSON.stringify({ failure, message, ...(details ? { details } : {}) } satisfies EachJson));
    }
  }
  return `[${parts.join(",")}]`;
}

/** Evaluates the expression on the input; resolves to its result as JSON text. */
export async function evaluateJsonataOnJson(task: JsonataTask): Promise<string> {
  if (task.each) return evaluateEachOnJson({ ...task, each: task.each });
  const expression = parse(task.expression, task.timeLimitMs);
  let result: unknown;
  try {
    result = await expression.evaluate(JSON.parse(task.inputJson), task.bindings);
  } catch (error) {
    throw evaluationFailure(error, task.timeLimitMs);
  }
  return resultJson(result);
}
