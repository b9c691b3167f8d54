import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Link, useLocation, useSearch } from "wouter";
import { ApiError, client, describeError, read } from "../api";
import { ConfirmDialog } from "../ui/confirm-dialog";
import { useCursorPages } from "../ui/cursor-pages";
import { FlowFailures, useBulkRerun, type BulkRerunBody } from "../components/flow-failures";
import { OperationProgress } from "../runs/operation-progress";
import {
  bulkTargets,
  instantToLocal,
  isFiltered,
  listQuery,
  localToInstant,
  rerunOfLabel,
  rerunsLabel,
  runIdFilter,
  RUN_STATUSES,
  searchOfView,
  viewFromSearch,
  WINDOWS,
  withWindow,
  type RunsView,
} from "../components/runs-view";
import { QueuedRunStatus, useQueuedPlaces } from "../components/queued-run-status";
import { unended } from "../runs/run-progress";
import { ErrorMessage, StatusBadge } from "../ui/status-badge";
import { formatDuration, formatTime } from "../format";
import { useSession } from "../session";
import { pollInterval } from "../ui/poll-interval";
import { RUN_TRIGGERS, type RunsQuery, type RunSummary } from "../types";

/** The view in the page's address: every change replaces it, so the back button leaves the page. */
function useRunsView(): [RunsView, (view: RunsView) => void] {
  const search = useSearch();
  const [, navigate] = useLocation();
  const view = useMemo(() => viewFromSearch(search), [search]);
  return [view, (next) => navigate(`/runs${searchOfView(next)}`, { replace: true })];
}

function RunFilters({ view, onChange }: { view: RunsView; onChange: (view: RunsView) => void }) {
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

interface BulkOutcome {
  action: "retry" | "cancel";
  done: number;
  failed: Array<{ id: string; message: string }>;
}

/** Calls `path(id)` for each run in turn (the API's own endpoint per run), collecting what failed. */
async function actOnEach(action: BulkOutcome["action"], ids: string[]): Promise<BulkOutcome> {
  const outcome: BulkOutcome = { action, done: 0, failed: [] };
  for (const id of ids) {
    try {
      const params = { path: { id } };
      await (action === "retry"
        ? client.POST("/api/runs/{id}/retry", { params })
        : client.POST("/api/runs/{id}/cancel", { params }));
      outcome.done++;
    } catch (error) {
      outcome.failed.push({ id, message: describeError(error) });
    }
  }
  return outcome;
}

function outcomeText({ action, done, failed }: BulkOutcome): string {
  const verb = action === "retry" ? "Retried" : "Cancelled";
  const runs = (n: number) => `${n} run${n === 1 ? "" : "s"}`;
  const refused = failed.map((f) => `${f.id}: ${f.message}`).join("; ");
  return failed.length ? `${verb} ${runs(done)}; ${runs(failed.length)} not: ${refused}` : `${verb} ${runs(done)}.`;
}

/** Retry and cancel for the selected runs: each run through its own endpoint (a cancel takes the runs below it too). */
function BulkActions({
  selected,
  onDone,
  canAct,
  onRerun,
}: {
  selected: RunSummary[];
  onDone: () => void;
  canAct: boolean;
  /** Starts a bulk rerun of the selected runs. */
  onRerun: (body: BulkRerunBody) => void;
}) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState<BulkOutcome["action"] | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<BulkOutcome | null>(null);
  const targets = bulkTargets(selected);
  const ended = selected.filter((run) => !unended(run.status));
  const act = async (action: BulkOutcome["action"]) => {
    setAsking(null);
    setBusy(true);
    setOutcome(await actOnEach(action, targets[action]));
    setBusy(false);
    onDone();
    void queryClient.invalidateQueries({ queryKey: ["runs"] });
  };
  return (
    <>
      {selected.length > 0 && (
        <div className="toolbar bulk" role="group" aria-label="Selected runs">
          <strong>{selected.length} selected</strong>
          <button type="button" disabled={busy || targets.retry.length === 0} onClick={() => void act("retry")}>
            Retry failed ({targets.retry.length})
          </button>
          <button type="button" disabled={busy || targets.cancel.length === 0} onClick={() => setAsking("cancel")}>
            Cancel running ({targets.cancel.length})
          </button>
          {canAct && (
            <button
              type="button"
              disabled={busy || ended.length === 0}
              onClick={() => {
                // Failed runs from their failed node; any other ended one from the start.
                const allFailed = ended.every((run) => run.status === "failed");
                onRerun({
                  ids: ended.map((run) => run.id),
                  version: "latest",
                  ...(allFailed ? { from_failed: true as const } : {}),
                });
                onDone();
              }}
            >
              Rerun selected on the latest version ({ended.length})
            </button>
          )}
          <button type="button" className="link" disabled={busy} onClick={onDone}>
            Clear selection
          </button>
        </div>
      )}
      {outcome && (
        <p className={outcome.failed.length ? "error-message" : "notice"} role="status">
          {outcomeText(outcome)}
        </p>
      )}
      <ConfirmDialog
        open={asking === "cancel"}
        title={`Cancel ${targets.cancel.length} running run${targets.cancel.length === 1 ? "" : "s"}?`}
        confirmLabel="Cancel them"
        onConfirm={() => void act("cancel")}
        onCancel={() => setAsking(null)}
      >
        <p>Each ends as cancelled, with every run it started below it.</p>
      </ConfirmDialog>
    </>
  );
}

/** Under a run's id: the run it reruns or retries (linked), and how often it was rerun since. */
function RerunMarks({ run }: { run: RunSummary }) {
  const of = rerunOfLabel(run);
  const reruns = rerunsLabel(run.reruns);
  return (
    <>
      {of && run.rerun_of && (
        <div className="small muted" data-mark="rerun-of">
          {of} <Link href={`/runs/${run.rerun_of}`}>{run.rerun_of}</Link>
        </div>
      )}
      {reruns && (
        <div className="small">
          <span className="badge" data-mark="reruns">
            {reruns}
          </span>
        </div>
      )}
    </>
  );
}

function RunsTable(props: {
  items: RunSummary[];
  selected: Set<string>;
  onSelect: (ids: string[], on: boolean) => void;
}) {
  const allOn = props.items.length > 0 && props.items.every((run) => props.selected.has(run.id));
  const queuedPlaces = useQueuedPlaces(props.items);
  return (
    <table className="list cards">
      <thead>
        <tr>
          <th className="select">
            <input
              type="checkbox"
              aria-label="Select every run on this page"
              checked={allOn}
              onChange={(e) =>
                props.onSelect(
                  props.items.map((run) => run.id),
                  e.target.checked,
                )
              }
            />
          </th>
          <th>Run</th>
          <th>Flow</th>
          <th>Status</th>
          <th>Trigger</th>
          <th>Started</th>
          <th>Duration</th>
          <th>Error</th>
        </tr>
      </thead>
      <tbody>
        {props.items.map((run) => (
          <tr key={run.id} data-run={run.id}>
            <td className="select">
              <input
                type="checkbox"
                aria-label={`Select ${run.id}`}
                checked={props.selected.has(run.id)}
                onChange={(e) => props.onSelect([run.id], e.target.checked)}
              />
            </td>
            <td>
              <Link href={`/runs/${run.id}`}>{run.id}</Link>
              <RerunMarks run={run} />
            </td>
            <td data-label="Flow">
              {run.flow_name} <span className="muted">v{run.version}</span>
            </td>
            <td data-label="Status">
              {run.status === "queued" ? (
                <QueuedRunStatus place={queuedPlaces.get(run.id)} />
              ) : (
                <StatusBadge status={run.status} />
              )}
            </td>
            <td data-label="Trigger">{run.trigger}</td>
            <td data-label="Started">{formatTime(run.started_at)}</td>
            <td data-label="Duration">{formatDuration(run.duration_ms)}</td>
            <td className="run-error-line" {...(run.error ? { "data-label": "Error", title: run.error } : {})}>
              {run.error}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The page of runs, or what stands for it: loading, none (and why), or nothing when the query was refused (said above). */
function RunsListBody(props: {
  pending: boolean;
  refused: boolean;
  filtered: boolean;
  items: RunSummary[];
  selected: Set<string>;
  onSelect: (ids: string[], on: boolean) => void;
}) {
  if (props.pending) return <p className="loading">Loading runs…</p>;
  if (props.items.length > 0)
    return <RunsTable items={props.items} selected={props.selected} onSelect={props.onSelect} />;
  // A refused filter lists nothing and says why above, not that no run matches.
  if (props.refused) return null;
  return (
    <p className="empty">
      {props.filtered
        ? "No runs match these filters: change them, or widen the time window."
        : "No runs yet: open a flow and press Run, or call its hook URL."}
    </p>
  );
}

/** A page of runs, polled while any runs; a refused query (an id that cannot be one) is not asked again. */
function useRunsPage(query: RunsQuery, cursor: string | undefined) {
  return useQuery({
    queryKey: ["runs", query, cursor],
    queryFn: () => read(client.GET("/api/runs", { params: { query: { limit: 50, ...query, cursor } } })),
    refetchInterval: (q) =>
      q.state.error instanceof ApiError && q.state.error.status < 500
        ? false
        : pollInterval(q.state.data?.items.some((r) => unended(r.status)) ?? false, q.state.fetchFailureCount),
  });
}

/** The selected runs' ids, and a way to add or remove some. */
function useSelection() {
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const select = (ids: string[], on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      for (const id of ids)
        if (on) next.add(id);
        else next.delete(id);
      return next;
    });
  return [selected, setSelected, select] as const;
}

export function RunsPage() {
  const [view, setView] = useRunsView();
  const query = listQuery(view);
  // The pages behind the one shown are in the address, so a reload or a shared link opens the same page.
  const pages = useCursorPages({
    held: { cursors: view.cursors, onChange: (cursors) => setView({ ...view, cursors }) },
  });
  const runs = useRunsPage(query, pages.cursor);
  const items = runs.data?.items ?? [];
  const [selected, setSelected, select] = useSelection();
  // The selection is of runs on the page shown: a new filter or page leaves those it no longer shows.
  const selectedRuns = items.filter((run) => selected.has(run.id));
  const role = useSession().data?.workspace.role;
  const canAct = role !== undefined && role !== "viewer";
  const [operationId, setOperationId] = useState<string | null>(null);
  const bulkRerun = useBulkRerun(setOperationId);
  const flowVersion = useQuery({
    queryKey: ["runs", "flow-version", view.flow],
    queryFn: () => read(client.GET("/api/flows/{id}", { params: { path: { id: view.flow } } })),
    enabled: view.flow !== "",
  });
  const latest = view.flow ? flowVersion.data?.version : undefined;
  // Every failed run of the flow the filters match, each from its failed node (not the id filter: it is one run).
  const filters = {
    flow_id: query.flow_id,
    status: query.status,
    trigger: query.trigger,
    started_after: query.started_after,
    started_before: query.started_before,
  };
  const rerunAll = canAct && view.flow !== "" && query.status === "failed" && !query.id;

  return (
    <section>
      <h1>Runs</h1>
      <RunFilters view={view} onChange={(next) => setView({ ...next, cursors: [] })} />
      <BulkActions
        selected={selectedRuns}
        onDone={() => setSelected(new Set())}
        canAct={canAct}
        onRerun={(body) => bulkRerun.mutate(body)}
      />
      {rerunAll && (
        <div className="toolbar">
          <button
            type="button"
            disabled={bulkRerun.isPending || operationId !== null}
            onClick={() => bulkRerun.mutate({ ...filters, from_failed: true, version: "latest" })}
          >
            Rerun all matching on the latest version{latest !== undefined && ` (v${latest})`}
          </button>
        </div>
      )}
      <ErrorMessage error={bulkRerun.error ? describeError(bulkRerun.error) : null} />
      {operationId && <OperationProgress key={operationId} id={operationId} onClose={() => setOperationId(null)} />}
      {view.flow && <FlowFailures flowId={view.flow} latest={latest} canAct={canAct} onStarted={setOperationId} />}
      <ErrorMessage error={runs.error ? describeError(runs.error) : null} />
      <RunsListBody
        pending={runs.isPending}
        refused={runs.error !== null}
        filtered={isFiltered(view)}
        items={items}
        selected={selected}
        onSelect={select}
      />
      {pages.pager(runs.data?.next_cursor)}
    </section>
  );
}
