// A flow's debounce as the editor's fields type it, to the definition and back, and checked as the
// server checks it (core/contracts/flow-definition.ts, flowDebounceSchema;
// core/contracts/flow-debounce-editor.test.ts holds both to the same answers).
// Imports nothing (the server's test of it compiles it too): FlowSettings (flow-graph.ts) as it is.
type FlowSettings = { error_flow_id?: string; [field: string]: unknown };

/** The API's bounds (FLOW_LIMITS in core/contracts/flow-definition.ts). */
export const DEBOUNCE_LIMITS = {
  minPeriodMs: 100,
  maxPeriodMs: 3_600_000,
  maxWaitPeriods: 100,
  maxWaitMs: 86_400_000,
  maxKeyTemplate: 500,
} as const;

/** The fields as typed (milliseconds as text). */
export interface DebounceRow {
  periodMs: string;
  key: string;
  maxWaitMs: string;
}

interface Debounce {
  period_ms: number;
  key?: string;
  max_wait_ms?: number;
}

const text = (value: unknown) => (typeof value === "number" || typeof value === "string" ? String(value) : "");
const number = (typed: string) => (typed.trim() === "" ? undefined : Number(typed.trim()));

export function debounceRow(settings: FlowSettings): DebounceRow {
  const debounce = (settings.debounce ?? {}) as Partial<Debounce>;
  return { periodMs: text(debounce.period_ms), key: debounce.key ?? "", maxWaitMs: text(debounce.max_wait_ms) };
}

/** The settings with the row's debounce in place of theirs: without a period, none. */
export function withDebounce(settings: FlowSettings, row: DebounceRow): FlowSettings {
  const { debounce: _d, ...rest } = settings;
  const period = number(row.periodMs);
  if (period === undefined) return rest;
  const maxWait = number(row.maxWaitMs);
  return {
    ...rest,
    debounce: {
      period_ms: period,
      ...(row.key.trim() ? { key: row.key.trim() } : {}),
      ...(maxWait === undefined ? {} : { max_wait_ms: maxWait }),
    },
  };
}

/** What the server would refuse in the row, naming the field as it does; null when it takes it. */
export function debounceProblem(row: DebounceRow): string | null {
  const period = number(row.periodMs);
  if (period === undefined) return null;
  const { minPeriodMs, maxPeriodMs, maxWaitPeriods, maxWaitMs, maxKeyTemplate } = DEBOUNCE_LIMITS;
  if (!Number.isInteger(period) || period < minPeriodMs || period > maxPeriodMs) {
    return `debounce.period_ms: a whole number of milliseconds from ${minPeriodMs} to ${maxPeriodMs} (an hour)`;
  }
  if (row.key.trim().length > maxKeyTemplate) return `debounce.key: at most ${maxKeyTemplate} characters`;
  const wait = number(row.maxWaitMs);
  if (wait === undefined) return null;
  const most = Math.min(period * maxWaitPeriods, maxWaitMs);
  if (!Number.isInteger(wait) || wait < period || wait > most) {
    return `debounce.max_wait_ms: a whole number of milliseconds from the period (${period}) to ${most}`;
  }
  return null;
}
