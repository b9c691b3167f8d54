import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Link, useLocation } from "wouter";
import { client, describeError, read } from "../api";
import { ErrorMessage, StatusBadge } from "../components/status-badge";
import { FlowRowActions } from "../components/flow-row-actions";
import { useSession } from "../session";
import { formatDuration, formatTime } from "../format";
import type { FlowDefinition, FlowListItem, FlowStatus } from "../types";
import { useCursorPages } from "../components/cursor-pages";

/** A new flow starts with a manual trigger: a definition needs at least one node. */
const STARTER = {
  nodes: [{ id: "start", type: "manual", name: "Manual trigger", config: {}, position: { x: 80, y: 120 } }],
  edges: [],
};

/** The flows of a page, each with its tags (a click filters by one) and, for editors, its actions. */
function FlowsTable(props: {
  items: FlowListItem[];
  canManage: boolean;
  onTag: (tag: string) => void;
  onDone: (notice: string) => void;
}) {
  return (
    <table className="list cards">
      <thead>
        <tr>
          <th>Name</th>
          <th>Status</th>
          <th>Version</th>
          <th>Last run</th>
          <th>Updated</th>
          {props.canManage && <th aria-label="Actions" />}
        </tr>
      </thead>
      <tbody>
        {props.items.map((flow) => {
          const run = flow.last_run;
          return (
            <tr key={flow.id} data-flow={flow.id}>
              <td>
                <Link href={`/flows/${flow.id}`}>{flow.name}</Link>
                {flow.tags.length > 0 && (
                  <div className="small tags">
                    {flow.tags.map((tag) => (
                      <button
                        key={tag}
                        type="button"
                        className="badge tag"
                        aria-label={`Show flows tagged ${tag}`}
                        onClick={() => props.onTag(tag)}
                      >
                        {tag}
                      </button>
                    ))}
                  </div>
                )}
              </td>
              <td data-label="Status">
                <StatusBadge status={flow.status} />
              </td>
              <td data-label="Version">v{flow.version}</td>
              <td data-label="Last run">
                {run ? (
                  <Link href={`/runs/${run.id}`} data-last-run={run.id}>
                    <StatusBadge status={run.status} /> {formatTime(run.started_at)}
                    {run.duration_ms !== null && <span className="muted"> · {formatDuration(run.duration_ms)}</span>}
                  </Link>
                ) : (
                  <span className="muted">never run</span>
                )}
              </td>
              <td data-label="Updated">{formatTime(flow.updated_at)}</td>
              {props.canManage && (
                <td>
                  <FlowRowActions key={`${flow.id}:${flow.version}:${flow.status}`} flow={flow} onDone={props.onDone} />
                </td>
              )}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function FlowsPage() {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const [search, setSearch] = useState("");
  const [status, setStatus] = useState("");
  const [tag, setTag] = useState("");
  const [notice, setNotice] = useState("");
  const form = useForm({ defaultValues: { name: "", template: "" } });
  const template = form.watch("template");
  const q = search.trim();
  const pages = useCursorPages({ resetOn: [status, q, tag] });
  const role = useSession().data?.workspace.role;
  const canManage = role !== undefined && role !== "viewer";

  // Each item carries its last run: polled so that runs started elsewhere show up.
  const flows = useQuery({
    queryKey: ["flows", status, q, tag, pages.cursor],
    // The search and the tag are answered by the server, over every flow (not only a loaded page).
    queryFn: () =>
      read(
        client.GET("/api/flows", {
          params: {
            query: {
              limit: 50,
              cursor: pages.cursor,
              ...(status ? { status: status as FlowStatus } : {}),
              ...(q ? { q } : {}),
              ...(tag ? { tag } : {}),
            },
          },
        }),
      ),
    refetchInterval: 10_000,
  });
  const templates = useQuery({
    queryKey: ["templates"],
    queryFn: () => read(client.GET("/api/templates")),
  });
  const create = useMutation({
    mutationFn: ({ name, template }: { name: string; template: string }) =>
      read(
        client.POST("/api/flows", {
          // Inactive until its author activates it: a half-built flow's hook or schedule must not fire.
          body: template
            ? { template, status: "inactive", ...(name ? { name } : {}) }
            : { name, status: "inactive", definition: STARTER },
        }),
      ),
    onSuccess: (flow) => {
      void queryClient.invalidateQueries({ queryKey: ["flows"] });
      navigate(`/flows/${flow.id}`);
    },
  });

  const importFlow = useMutation({
    mutationFn: async (file: File) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(await file.text());
      } catch {
        throw new Error(`${file.name} is not a JSON file`);
      }
      const body = (parsed ?? {}) as { name?: unknown; description?: unknown; definition?: unknown };
      // An export ({ name, description, definition }) or a bare definition ({ nodes, edges }).
      const definition = body.definition ?? parsed;
      const name = typeof body.name === "string" && body.name ? body.name : file.name.replace(/\.json$/i, "");
      // The API checks the definition; a file's mistakes come back as its validation details.
      return read(
        client.POST("/api/flows", {
          body: {
            name,
            status: "inactive",
            ...(typeof body.description === "string" ? { description: body.description } : {}),
            definition: definition as FlowDefinition,
          },
        }),
      );
    },
    onSuccess: (flow) => {
      void queryClient.invalidateQueries({ queryKey: ["flows"] });
      navigate(`/flows/${flow.id}`);
    },
  });

  const items = flows.data?.items ?? [];

  return (
    <section>
      <h1>Flows</h1>
      <form className="toolbar" onSubmit={form.handleSubmit((flow) => create.mutate(flow))}>
        <input
          aria-label="New flow name"
          placeholder="Name of a new flow"
          required={!template}
          {...form.register("name")}
        />
        <select aria-label="Template" {...form.register("template")}>
          <option value="">From scratch</option>
          {(templates.data?.items ?? []).map((t) => (
            <option key={t.id} value={t.id}>
              Template: {t.name}
            </option>
          ))}
        </select>
        <button type="submit" disabled={create.isPending}>
          Create flow
        </button>
      </form>
      <div className="toolbar">
        <label className="file-button">
          Import a flow (JSON)
          <input
            type="file"
            accept="application/json,.json"
            aria-label="Import flow JSON"
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (file) importFlow.mutate(file);
              e.target.value = "";
            }}
          />
        </label>
      </div>
      <ErrorMessage error={create.error ? describeError(create.error) : null} />
      <ErrorMessage error={importFlow.error ? describeError(importFlow.error) : null} />
      <div className="toolbar">
        <input
          aria-label="Search flows"
          placeholder="Search by name"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <select aria-label="Status filter" value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">Any status</option>
          <option value="active">active</option>
          <option value="inactive">inactive</option>
          <option value="archived">archived</option>
        </select>
        {tag && (
          <button
            type="button"
            className="badge tag"
            aria-label={`Stop filtering by tag ${tag}`}
            onClick={() => setTag("")}
          >
            tag: {tag} ×
          </button>
        )}
      </div>
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
          {search || status || tag
            ? "No flow matches: change the search or the status filter."
            : "No flows yet: give a new flow a name above and create it, or start from a template."}
        </p>
      ) : (
        <FlowsTable items={items} canManage={canManage} onTag={setTag} onDone={setNotice} />
      )}
      {pages.pager(flows.data?.next_cursor)}
    </section>
  );
}
