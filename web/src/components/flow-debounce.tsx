// A flow's debounce in the editor's flow-control box (docs/flows.md, "Flow control"): starts close
// together, per key, collapse into one run with the last input. Typed as text and saved with the
// definition; checked as the server checks it (debounce-row.ts), which names the field again at
// save.
import { useEffect, useState } from "react";
import { debounceProblem, debounceRow, withDebounce, type DebounceRow } from "./debounce-row";
import type { FlowSettings } from "./flow-graph";

const controlOf = (settings: FlowSettings) => JSON.stringify(settings.debounce ?? null);

/** The debounce fields, with what they do and what the server would refuse. */
export function DebounceFields(props: { settings: FlowSettings; onChange: (settings: FlowSettings) => void }) {
  const [row, setRow] = useState(() => debounceRow(props.settings));
  const given = controlOf(props.settings);
  useEffect(() => {
    if (given !== controlOf(withDebounce({}, row))) setRow(debounceRow(props.settings));
    // Only settings replaced from elsewhere (undo, a restored version): not the row itself.
  }, [given]);
  const set = (field: keyof DebounceRow) => (event: { target: { value: string } }) => {
    const next = { ...row, [field]: event.target.value };
    setRow(next);
    props.onChange(withDebounce(props.settings, next));
  };
  const problem = debounceProblem(row);
  return (
    <>
      <p className="muted small">
        Debounce: starts within the quiet period of the previous one (per key) collapse into one run with the last
        start&apos;s input; it starts once no start came for the period, or at the longest wait after the first (10
        periods when empty).
      </p>
      <label htmlFor="debounce-period">Debounce quiet period (ms, 100 to 3600000)</label>
      <input id="debounce-period" type="number" min={100} value={row.periodMs} onChange={set("periodMs")} />
      <label htmlFor="debounce-key">Debounce key</label>
      <input id="debounce-key" placeholder="{{ input.customer_id }}" value={row.key} onChange={set("key")} />
      <label htmlFor="debounce-max-wait">Debounce longest wait (ms)</label>
      <input id="debounce-max-wait" type="number" min={100} value={row.maxWaitMs} onChange={set("maxWaitMs")} />
      {problem && (
        <p className="error-message small" data-mark="debounce-problem">
          {problem}
        </p>
      )}
    </>
  );
}
