// A flow's flow control in the editor (docs/flows.md, "Flow control"): its concurrency, throttle,
// priority and debounce (flow-debounce.tsx), typed as text and saved with the definition; the
// server checks them at save. With a concurrency or throttle saved, the box shows the flow's queue
// now (flow-queue.tsx).
import { useEffect, useState } from "react";
import { DebounceFields } from "./flow-debounce";
import { FlowQueueLine } from "./flow-queue";
import type { FlowSettings } from "./flow-graph";

/** The fields as typed (numbers as text: "1" while typing "10"). */
export interface FlowControlRow {
  concurrencyLimit: string;
  concurrencyKey: string;
  throttleLimit: string;
  /** In seconds; the definition holds milliseconds. */
  throttleSeconds: string;
  throttleKey: string;
  /** "" (the default, 3), "1" to "5", or a template giving one ("{{ input.priority }}"). */
  priority: string;
}

interface Concurrency {
  limit: number;
  key?: string;
}
interface Throttle extends Concurrency {
  period_ms: number;
}

const text = (value: unknown) => (typeof value === "number" || typeof value === "string" ? String(value) : "");

export function flowControlRow(settings: FlowSettings): FlowControlRow {
  const concurrency = (settings.concurrency ?? {}) as Partial<Concurrency>;
  const throttle = (settings.throttle ?? {}) as Partial<Throttle>;
  return {
    concurrencyLimit: text(concurrency.limit),
    concurrencyKey: concurrency.key ?? "",
    throttleLimit: text(throttle.limit),
    throttleSeconds: throttle.period_ms === undefined ? "" : String(throttle.period_ms / 1000),
    throttleKey: throttle.key ?? "",
    priority: text(settings.priority),
  };
}

/** A whole number typed, or undefined when the field is empty or not one (the server names the field then). */
const number = (typed: string) => (typed.trim() === "" ? undefined : Number(typed.trim()));

/** The settings with the row's flow control in place of theirs: an emptied setting is removed. */
export function withFlowControl(settings: FlowSettings, row: FlowControlRow): FlowSettings {
  const { concurrency: _c, throttle: _t, priority: _p, ...rest } = settings;
  const key = (typed: string) => (typed.trim() ? { key: typed.trim() } : {});
  const concurrencyLimit = number(row.concurrencyLimit);
  const throttleLimit = number(row.throttleLimit);
  const seconds = number(row.throttleSeconds);
  const typedPriority = row.priority.trim();
  // A number is saved as one; anything else (a template) as text, which the server checks.
  const priority = /^\d+$/.test(typedPriority) ? Number(typedPriority) : typedPriority || undefined;
  return {
    ...rest,
    ...(concurrencyLimit === undefined ? {} : { concurrency: { limit: concurrencyLimit, ...key(row.concurrencyKey) } }),
    ...(throttleLimit === undefined || seconds === undefined
      ? {}
      : { throttle: { limit: throttleLimit, period_ms: Math.round(seconds * 1000), ...key(row.throttleKey) } }),
    ...(priority === undefined ? {} : { priority }),
  };
}

/** The flow control part of settings, to compare two. */
const controlOf = (settings: FlowSettings) =>
  JSON.stringify([settings.concurrency ?? null, settings.throttle ?? null, settings.priority ?? null]);

/** The editor's flow control fields, each with a line on what it does. */
export function FlowControlFields(props: { settings: FlowSettings; onChange: (settings: FlowSettings) => void }) {
  // The fields as typed ("1." stays while typing "1.5"); settings replaced from elsewhere (undo, a
  // restored version) are read again.
  const [row, setRow] = useState(() => flowControlRow(props.settings));
  const given = controlOf(props.settings);
  useEffect(() => {
    if (given !== controlOf(withFlowControl({}, row))) setRow(flowControlRow(props.settings));
    // Only settings replaced from elsewhere: the row itself is not a reason to read them again.
  }, [given]);
  const set = (field: keyof FlowControlRow) => (event: { target: { value: string } }) => {
    const next = { ...row, [field]: event.target.value };
    setRow(next);
    props.onChange(withFlowControl(props.settings, next));
  };
  return (
    <fieldset className="flow-control stack">
      <legend>Flow control</legend>
      <p className="muted small">
        Runs past a limit wait, queued, in arrival order; none is dropped. A key (a template over the run&apos;s input,
        such as <code>{"{{ input.customer_id }}"}</code>) gives each of its values limits of its own; with both limits,
        use one key.
      </p>
      <label htmlFor="concurrency-limit">Concurrency limit (runs at once)</label>
      <input
        id="concurrency-limit"
        type="number"
        min={1}
        value={row.concurrencyLimit}
        onChange={set("concurrencyLimit")}
      />
      <label htmlFor="concurrency-key">Concurrency key</label>
      <input
        id="concurrency-key"
        placeholder="{{ input.customer_id }}"
        value={row.concurrencyKey}
        onChange={set("concurrencyKey")}
      />
      <label htmlFor="throttle-limit">Throttle: runs started per period</label>
      <input id="throttle-limit" type="number" min={1} value={row.throttleLimit} onChange={set("throttleLimit")} />
      <label htmlFor="throttle-seconds">Throttle period (seconds, 1 to 86400)</label>
      <input
        id="throttle-seconds"
        type="number"
        min={1}
        max={86400}
        value={row.throttleSeconds}
        onChange={set("throttleSeconds")}
      />
      <label htmlFor="throttle-key">Throttle key</label>
      <input
        id="throttle-key"
        placeholder="{{ input.customer_id }}"
        value={row.throttleKey}
        onChange={set("throttleKey")}
      />
      <label htmlFor="priority">
        Priority (within the workspace&apos;s share of the queue): 1 served first to 5 served last, 3 when empty, or a
        template over the run&apos;s input giving one
      </label>
      <input
        id="priority"
        list="priority-levels"
        placeholder="3, or {{ input.priority }}"
        value={row.priority}
        onChange={set("priority")}
      />
      <datalist id="priority-levels">
        <option value="1">served first</option>
        <option value="2" />
        <option value="3">the default</option>
        <option value="4" />
        <option value="5">served last</option>
      </datalist>
      <DebounceFields settings={props.settings} onChange={props.onChange} />
      <FlowQueueLine gated={props.settings.concurrency !== undefined || props.settings.throttle !== undefined} />
    </fieldset>
  );
}
