// A flow's concurrency key (its definition's `concurrency.key`, docs/flows.md "Flow control"): a
// template over the run's input, checked when the flow is saved and rendered when a run starts.
// Pure: the runFlow workflow renders its key (core/engine/concurrency-gates.ts names its gate).
import type { ConcurrencySetting, DebounceSetting, ThrottleSetting } from "../contracts/flow-definition.js";
import { findTemplates, renderString, TemplateLimitError } from "./template.js";

/** Roots a key may read: the run's input, as `input` or as `trigger` (the same value at the start). */
const KEY_ROOTS: ReadonlySet<string> = new Set(["input", "trigger"]);
/** Data a key's render may read; beyond it the run fails (its input is not a key). */
const MAX_KEY_RENDER_BYTES = 64 * 1024;

/** The problems of a key template known at save (syntax, roots other than the run's input). */
export function concurrencyKeyProblems(key: string): string[] {
  const problems: string[] = [];
  for (const finding of findTemplates(key)) {
    if (finding.error) problems.push(finding.error);
    for (const path of finding.paths) {
      if (!KEY_ROOTS.has(String(path[0]))) {
        problems.push(`{{ ${String(path[0])} }} is not known when a run starts: a key reads {{ input.… }} only`);
      }
    }
  }
  return problems;
}

/** A key that could not be rendered from a run's input: the run fails with this message. */
export class ConcurrencyKeyError extends Error {
  override name = "ConcurrencyKeyError";
}

/** A run's concurrency key as its input renders it, "" for a flow without a key. */
export function renderConcurrencyKey(
  setting: ConcurrencySetting | ThrottleSetting | DebounceSetting | GateSetting,
  input: unknown,
  field = "concurrency.key",
): string {
  if (setting.key === undefined) return "";
  let rendered: unknown;
  try {
    rendered = renderString(setting.key, { input, trigger: input, nodes: {}, run: {} }, MAX_KEY_RENDER_BYTES);
  } catch (error) {
    const reason = error instanceof TemplateLimitError ? "its value is too large" : (error as Error).message;
    throw new ConcurrencyKeyError(`${field} could not be rendered: ${reason}`);
  }
  if (rendered === undefined || rendered === null || rendered === "") {
    throw new ConcurrencyKeyError(`${field} ${setting.key} is empty for this run's input`);
  }
  return typeof rendered === "string" ? rendered : JSON.stringify(rendered);
}

/** A gate's limit of runs at once for a flow with a throttle and no concurrency: none in effect. */
export const NO_CONCURRENCY_LIMIT = Number.MAX_SAFE_INTEGER;

/** What a flow's gate enforces: both rules share one gate per flow and key (docs/flows.md, "Flow control"). */
export interface GateSetting {
  /** Runs at once per key (NO_CONCURRENCY_LIMIT without `concurrency`). */
  limit: number;
  /** Runs starting per period per key, when the flow has `throttle`. */
  throttle?: { limit: number; periodMs: number };
  key?: string;
  /** The field a key that does not render is reported under. */
  field: string;
}

/** The gate a flow's runs pass before their first node, or undefined when it has neither rule. */
export function gateSetting(definition: {
  concurrency?: ConcurrencySetting | undefined;
  throttle?: ThrottleSetting | undefined;
}): GateSetting | undefined {
  const { concurrency, throttle } = definition;
  if (!concurrency && !throttle) return undefined;
  const key = concurrency?.key ?? throttle?.key;
  return {
    limit: concurrency?.limit ?? NO_CONCURRENCY_LIMIT,
    ...(throttle ? { throttle: { limit: throttle.limit, periodMs: throttle.period_ms } } : {}),
    ...(key !== undefined ? { key } : {}),
    field: concurrency ? "concurrency.key" : "throttle.key",
  };
}
