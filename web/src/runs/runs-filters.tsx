// The runs list's filters: the id search, flow, status, trigger and time window, each change a new
// view in the page's address (runs-view.ts).
import { useQuery } from "@tanstack/react-query";
import { client, read } from "../api";
import { RUN_TRIGGERS } from "../types";
import {
  instantToLocal,
  isFiltered,
  localToInstant,
  runIdFilter,
  RUN_STATUSES,
  viewFromSearch,
  WINDOWS,
  withWindow,
  type RunsView,
} from "./runs-view";

export function RunsFilters({ view, onChange }: { view: RunsView; onChange: (view: RunsView) => void }) {
  const flows = useQuery({
    queryKey: ["flows", "all"],
    queryFn: () => read(client.GET("/api/flows", { params: { query: { limit: 200 } } })),
  });
  const set = (field: keyof RunsView) => (event: { target: { value: string } }) =>
    onChange({ ...view, [field]: event.target.value });
  const idProblem = view.id.trim() !== "" && runIdFilter(view.id) === null;
  return (
    <div className="toolbar filters">
      <input
        type="search"
        aria-label="Run id"
        placeholder="Run id (run_3fa8…)"
        value={view.id}
        onChange={set("id")}
        aria-invalid={idProblem}
        title={idProblem ? "A run id is run_ and up to 24 of 0-9 and a-f" : undefined}
      />
      <select aria-label="Flow filter" value={view.flow} onChange={set("flow")}>
        <option value="">Every flow</option>
        {(flows.data?.items ?? []).map((f) => (
          <option key={f.id} value={f.id}>
            {f.name}
          </option>
        ))}
      </select>
      <select aria-label="Status filter" value={view.status} onChange={set("status")}>
        <option value="">Any status</option>
        {RUN_STATUSES.map((s) => (
          <option key={s}>{s}</option>
        ))}
      </select>
      <select aria-label="Trigger filter" value={view.trigger} onChange={set("trigger")}>
        <option value="">Any trigger</option>
        {RUN_TRIGGERS.map((t) => (
          <option key={t}>{t}</option>
        ))}
      </select>
      <select
        aria-label="Time filter"
        value={view.window}
        onChange={(e) => onChange(withWindow(view, e.target.value, Date.now()))}
      >
        {WINDOWS.map((w) => (
          <option key={w.value} value={w.value}>
            {w.label}
          </option>
        ))}
      </select>
      {view.window === "custom" && (
        <>
          <input
            type="datetime-local"
            aria-label="Started from"
            value={instantToLocal(view.after)}
            onChange={(e) => onChange({ ...view, after: localToInstant(e.target.value) })}
          />
          <input
            type="datetime-local"
            aria-label="Started before"
            value={instantToLocal(view.before)}
            onChange={(e) => onChange({ ...view, before: localToInstant(e.target.value) })}
          />
        </>
      )}
      {isFiltered(view) && (
        <button type="button" className="link" onClick={() => onChange(viewFromSearch(""))}>
          Clear filters
        </button>
      )}
    </div>
  );
}
