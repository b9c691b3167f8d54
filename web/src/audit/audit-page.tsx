// The audit page (/audit): the workspace's audit log for admins and owners, filtered by person,
// action and days (kept in the address), a page at a time, and exported (CSV, JSON) with the same
// filter. Others get the API's 403 as a plain "admins only".
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { useLocation, useSearch } from "wouter";
import { ApiError, apiUrl, client, describeError, read } from "../api";
import { useCursorPages } from "../ui/cursor-pages";
import { ErrorMessage } from "../ui/status-badge";
import { AuditFilters } from "./audit-filters";
import { AuditTable } from "./audit-table";
import {
  auditFilter,
  auditViewFromSearch,
  exportPath,
  isFiltered,
  searchOfAuditView,
  type AuditView,
} from "./audit-view";

/** The view in the page's address: every change replaces it, so the back button leaves the page. */
function useAuditView(): [AuditView, (view: AuditView) => void] {
  const search = useSearch();
  const [, navigate] = useLocation();
  const view = useMemo(() => auditViewFromSearch(search), [search]);
  return [view, (next) => navigate(`/audit${searchOfAuditView(next)}`, { replace: true })];
}

function ExportLinks({ view }: { view: AuditView }) {
  return (
    <p className="toolbar exports">
      <a href={apiUrl(exportPath(view, "csv"))} download="audit.csv">
        Export CSV
      </a>{" "}
      <a href={apiUrl(exportPath(view, "json"))} download="audit.json">
        Export JSON
      </a>{" "}
      <span className="hint">the rows of these filters, newest first, at most 10,000</span>
    </p>
  );
}

export function AuditPage() {
  const [view, setView] = useAuditView();
  const pages = useCursorPages({
    held: { cursors: view.cursors, onChange: (cursors) => setView({ ...view, cursors }) },
  });
  const filter = auditFilter(view);
  const events = useQuery({
    queryKey: ["audit", filter, pages.cursor],
    queryFn: () =>
      read(client.GET("/api/audit", { params: { query: { limit: 50, ...filter, cursor: pages.cursor } } })),
    retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
  });
  if (events.error instanceof ApiError && events.error.status === 403) {
    return (
      <section>
        <h1>Audit log</h1>
        <p className="notice" role="alert" data-mark="admins-only">
          The audit log is for admins and owners only. {events.error.message}
        </p>
      </section>
    );
  }
  const items = events.data?.items ?? [];
  return (
    <section>
      <h1>Audit log</h1>
      <AuditFilters view={view} onChange={setView} />
      <ExportLinks view={view} />
      <ErrorMessage error={events.error ? describeError(events.error) : null} />
      {events.isPending ? (
        <p className="loading">Loading the audit log…</p>
      ) : items.length === 0 ? (
        <p className="empty">No audit events{isFiltered(view) ? " match these filters" : ""}.</p>
      ) : (
        <AuditTable items={items} />
      )}
      {pages.pager(events.data?.next_cursor)}
    </section>
  );
}
