// The flows list: create (from scratch or a template), import, search and filter, and each flow's row.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { client, describeError, read } from "../api";
import { ErrorMessage } from "../ui/status-badge";
import { useSession } from "../session";
import type { FlowStatus } from "../types";
import { useCursorPages } from "../ui/cursor-pages";
import { FlowsTable } from "./flows-table";
import { NewFlowForms } from "./new-flow-forms";

interface ListFilters {
  search: string;
  status: string;
  tag: string;
}

/** The search, the status filter and the tag being filtered by (a click on a row's tag sets it). */
function FlowFilters(props: { filters: ListFilters; onChange: (filters: ListFilters) => void }) {
  const { filters, onChange } = props;
  return (
    <div className="toolbar">
      <input
        aria-label="Search flows"
        placeholder="Search by name"
        value={filters.search}
        onChange={(e) => onChange({ ...filters, search: e.target.value })}
      />
      <select
        aria-label="Status filter"
        value={filters.status}
        onChange={(e) => onChange({ ...filters, status: e.target.value })}
      >
        <option value="">Any status</option>
        <option value="active">active</option>
        <option value="inactive">inactive</option>
        <option value="archived">archived</option>
      </select>
      {filters.tag && (
        <button
          type="button"
          className="badge tag"
          aria-label={`Stop filtering by tag ${filters.tag}`}
          onClick={() => onChange({ ...filters, tag: "" })}
        >
          tag: {filters.tag} ×
        </button>
      )}
    </div>
  );
}

/** A page of flows for the filters; each item carries its last run, polled so that runs started elsewhere show up. */
function useFlowList({ status, tag }: ListFilters, q: string, cursor: string | undefined) {
  return useQuery({
    queryKey: ["flows", status, q, tag, cursor],
    // The search and the tag are answered by the server, over every flow (not only a loaded page).
    queryFn: () =>
      read(
        client.GET("/api/flows", {
          params: {
            query: {
              limit: 50,
              cursor,
              ...(status ? { status: status as FlowStatus } : {}),
              ...(q ? { q } : {}),
              ...(tag ? { tag } : {}),
            },
          },
        }),
      ),
    refetchInterval: 10_000,
  });
}

export function FlowsPage() {
  const [filters, setFilters] = useState<ListFilters>({ search: "", status: "", tag: "" });
  const [notice, setNotice] = useState("");
  const q = filters.search.trim();
  const pages = useCursorPages({ resetOn: [filters.status, q, filters.tag] });
  const role = useSession().data?.workspace.role;
  const canManage = role !== undefined && role !== "viewer";
  const flows = useFlowList(filters, q, pages.cursor);
  const items = flows.data?.items ?? [];

  return (
    <section>
      <h1>Flows</h1>
      <NewFlowForms />
      <FlowFilters filters={filters} onChange={setFilters} />
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <ErrorMessage error={flows.error ? describeError(flows.error) : null} />
      {flows.isPending ? (
        <p className="loading">Loading flows…</p>
      ) : items.length === 0 ? (
        <p className="empty">
          {filters.search || filters.status || filters.tag
            ? "No flow matches: change the search or the status filter."
            : "No flows yet: give a new flow a name above and create it, or start from a template."}
        </p>
      ) : (
        <FlowsTable
          items={items}
          tagsInUse={[...new Set(items.flatMap((flow) => flow.tags))].sort()}
          canManage={canManage}
          onTag={(tag) => setFilters((current) => ({ ...current, tag }))}
          onDone={setNotice}
        />
      )}
      {pages.pager(flows.data?.next_cursor)}
    </section>
  );
}
