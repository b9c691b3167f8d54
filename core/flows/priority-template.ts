// A flow's priority given by a template (its definition's `priority`, docs/flows.md "Flow
// control"): checked when the flow is saved, rendered over the run's input when a run starts, as
// a concurrency key is. A start with a caller (the API's, a hook's) is refused when it does not
// give 1 to 5; a start without one (a schedule's fire, a child run, an error flow) is served at the
// default instead, and says so in a log line. Pure: nothing here runs in workflow code.
import { FLOW_PRIORITY } from "../contracts/run-priority.js";
import { DomainError } from "../errors.js";
import { concurrencyKeyProblems } from "./concurrency-key.js";
import { hasTemplate, renderString, TemplateLimitError } from "./template.js";

/** Where a priority's problems are reported (at save, and in a refused start's details). */
export const PRIORITY_FIELD = "priority";
/** Data a priority's render may read, as a key's. */
const MAX_PRIORITY_RENDER_BYTES = 64 * 1024;

/** The problems of a priority template known at save: not a template, bad syntax, data a start does not have. */
export function priorityTemplateProblems(template: string): string[] {
  if (!hasTemplate(template)) {
    return [`must be a number from 1 to 5, or a template giving one, such as {{ input.priority }}`];
  }
  return concurrencyKeyProblems(template).map((problem) => problem.replace("a key reads", "a priority reads"));
}

/** A priority template that gave no priority for a run's input. */
export class PriorityTemplateError extends Error {
  override name = "PriorityTemplateError";
}

/** 1 to 5 as a number or its text ("2"); undefined for anything else. */
function asPriority(value: unknown): number | undefined {
  const number = typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isInteger(number)) return undefined;
  return number >= FLOW_PRIORITY.highest && number <= FLOW_PRIORITY.lowest ? number : undefined;
}

/** The priority of a run of `definition` with `input`: its number, its template rendered, or the default. */
export function renderPriority(definition: { priority?: number | string }, input: unknown): number {
  const { priority } = definition;
  if (priority === undefined) return FLOW_PRIORITY.default;
  if (typeof priority === "number") return priority;
  let rendered: unknown;
  try {
    rendered = renderString(priority, { input, trigger: input, nodes: {}, run: {} }, MAX_PRIORITY_RENDER_BYTES);
  } catch (error) {
    const reason = error instanceof TemplateLimitError ? "its value is too large" : (error as Error).message;
    throw new PriorityTemplateError(`definition.priority ${priority} could not be rendered: ${reason}`);
  }
  const number = asPriority(rendered);
  if (number === undefined) {
    // The value's kind only: run input stays out of answers and log lines.
    const kind = typeof rendered;
    const what =
      rendered === undefined || rendered === null || rendered === ""
        ? "nothing"
        : `${kind === "object" ? "an" : "a"} ${kind}`;
    throw new PriorityTemplateError(
      `definition.priority ${priority} gave ${what} for this run's input; it must give an integer from 1 to 5`,
    );
  }
  return number;
}

/** The priority of a run a caller starts: 400 naming definition.priority when its template gives none. */
export function requiredPriority(definition: { priority?: number | string }, input: unknown): number {
  try {
    return renderPriority(definition, input);
  } catch (error) {
    if (!(error instanceof PriorityTemplateError)) throw error;
    throw new DomainError("invalid", "validation_failed", error.message, {
      details: [{ path: `definition.${PRIORITY_FIELD}`, message: error.message }],
    });
  }
}

/**
 * The priority of a run started without a caller to refuse (a schedule's fire, a child run, an
 * error flow): the default when its template gives none, with `warn` told why.
 */
export function fallbackPriority(
  definition: { priority?: number | string },
  input: unknown,
  warn: (message: string) => void,
): number {
  try {
    return renderPriority(definition, input);
  } catch (error) {
    if (!(error instanceof PriorityTemplateError)) throw error;
    warn(`${error.message}: the run is served at priority ${FLOW_PRIORITY.default}`);
    return FLOW_PRIORITY.default;
  }
}
