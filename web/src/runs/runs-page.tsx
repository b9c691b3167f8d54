// The runs list (/runs): filters kept in the page's address, the page of runs with its selection,
// the bulk bar, and the reruns of a flow's failed runs when filtered by a flow.
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { useLocation, useSearch } from "wouter";
import { ApiError, client, describeError, read } from "../api";
import { useCursorPages } from "../ui/cursor-pages";
import { FlowFailures, useBulkRerun, type BulkRerunBody } from "../components/flow-failures";
import { OperationProgress } from "./operation-progress";
import { unended } from "./run-progress";
import { RunsBulkBar } from "./runs-bulk-bar";
import { RunsFilters } from "./runs-filters";
import { RunsListBody } from "./runs-table";
import { isFiltered, listQuery, searchOfView, viewFromSearch, type RunsView } from "./runs-view";
import { ErrorMessage } from "../ui/status-badge";
import { useSession } from "../session";
import { pollInterval } from "../ui/poll-interval";
import type { RunsQuery } from "../types";

/** The view in the page's address: every change replaces it, so the back button leaves the page. */
function useRunsView(): [RunsView, (view: RunsView) => void] {
  const search = useSearch();
  const [, navigate] = useLocation();
  const view = useMemo(() => viewFromSearch(search), [search]);
  return [view, (next) => navigate(`/runs${searchOfView(next)}`, { replace: true })];
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

/** Every failed run of the flow the filters match, each from its failed node (not the id filter: it is one run). */
function RerunAllMatching(props: {
  query: RunsQuery;
  latest: number | undefined;
  disabled: boolean;
  onRerun: (body: BulkRerunBody) => void;
}) {
  const { query, latest } = props;
  const filters = {
    flow_id: query.flow_id,
    status: query.status,
    trigger: query.trigger,
    started_after: query.started_after,
    started_before: query.started_before,
  };
  return (
    <div className="toolbar">
      <button
        type="button"
        disabled={props.disabled}
        onClick={() => props.onRerun({ ...filters, from_failed: true, version: "latest" })}
      >
        Rerun all matching on the latest version{latest !== undefined && ` (v${latest})`}
      </button>
    </div>
  );
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
  const rerunAll = canAct && view.flow !== "" && query.status === "failed" && !query.id;

  return (
    <section>
      <h1>Runs</h1>
      <RunsFilters view={view} onChange={(next) => setView({ ...next, cursors: [] })} />
      <RunsBulkBar
        selected={selectedRuns}
        onDone={() => setSelected(new Set())}
        canAct={canAct}
        onRerun={(body) => bulkRerun.mutate(body)}
      />
      {rerunAll && (
        <RerunAllMatching
          query={query}
          latest={latest}
          disabled={bulkRerun.isPending || operationId !== null}
          onRerun={(body) => bulkRerun.mutate(body)}
        />
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
