// A flows-list row's actions: rename, edit tags, duplicate, archive or unarchive, delete (after saying
// what becomes of its runs). Each is one call of the flows API; the list is read again after it.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { client, describeError, read } from "../api";
import type { FlowStatus } from "../types";
import { ConfirmDialog } from "../ui/confirm-dialog";
import { ErrorMessage } from "../ui/status-badge";
import { FlowTagsDialog } from "./flow-tags-dialog";

export interface ManagedFlow {
  id: string;
  name: string;
  status: FlowStatus;
  version: number;
  tags: string[];
}

type Asking = "rename" | "tags" | "delete" | null;

/** The flows API calls behind the menu, each followed by a fresh read of the lists. */
function useFlowActions(flow: ManagedFlow, onDone: (notice: string) => void) {
  const queryClient = useQueryClient();
  const params = { path: { id: flow.id } };
  const done = (notice: string) => {
    void queryClient.invalidateQueries({ queryKey: ["flows"] });
    onDone(notice);
  };
  const change = useMutation({
    mutationFn: (body: { name?: string; status?: FlowStatus }) =>
      read(client.PUT("/api/flows/{id}", { params, body: { version: flow.version, ...body } })),
    onSuccess: (saved, body) =>
      done(body.name !== undefined ? `Renamed to ${saved.name}.` : `${saved.name} is ${saved.status}.`),
  });
  const duplicate = useMutation({
    mutationFn: () => read(client.POST("/api/flows/{id}/duplicate", { params })),
    onSuccess: (copy) => done(`Duplicated as ${copy.name} (inactive).`),
  });
  const remove = useMutation({
    mutationFn: () => read(client.DELETE("/api/flows/{id}", { params })),
    onSuccess: () => done(`Deleted ${flow.name}.`),
  });
  const error = change.error ?? duplicate.error ?? remove.error;
  const busy = change.isPending || duplicate.isPending || remove.isPending;
  return { change, duplicate, remove, busy, error: error ? describeError(error) : null };
}

/** The disclosure listing the actions; any choice closes it. */
function RowMenu(props: {
  flow: ManagedFlow;
  actions: ReturnType<typeof useFlowActions>;
  onAsk: (asking: Exclude<Asking, null>) => void;
}) {
  const { flow, actions } = props;
  const menu = useRef<HTMLDetailsElement>(null);
  const archived = flow.status === "archived";
  return (
    <details
      className="row-menu"
      ref={menu}
      onClick={(e) => e.target instanceof HTMLButtonElement && menu.current?.removeAttribute("open")}
    >
      <summary aria-label={`Actions for ${flow.name}`}>Actions</summary>
      <div role="group" aria-label={`Actions for ${flow.name}`}>
        <button type="button" onClick={() => props.onAsk("rename")}>
          Rename
        </button>
        <button type="button" onClick={() => props.onAsk("tags")}>
          Tags…
        </button>
        <button type="button" disabled={actions.busy} onClick={() => actions.duplicate.mutate()}>
          Duplicate
        </button>
        <button
          type="button"
          disabled={actions.busy}
          onClick={() => actions.change.mutate({ status: archived ? "inactive" : "archived" })}
        >
          {archived ? "Unarchive" : "Archive"}
        </button>
        <button type="button" className="danger" onClick={() => props.onAsk("delete")}>
          Delete
        </button>
      </div>
    </details>
  );
}

/** The menu of one row; `onDone` gets a sentence saying what was done; `tagsInUse` are suggested. */
export function FlowRowActions(props: { flow: ManagedFlow; tagsInUse: string[]; onDone: (notice: string) => void }) {
  const { flow } = props;
  const [asking, setAsking] = useState<Asking>(null);
  const [name, setName] = useState(flow.name);
  const finish = (notice: string) => {
    setAsking(null);
    props.onDone(notice);
  };
  const actions = useFlowActions(flow, finish);
  const trimmed = name.trim();
  return (
    <div className="flow-actions">
      <RowMenu
        flow={flow}
        actions={actions}
        onAsk={(ask) => {
          setName(flow.name);
          setAsking(ask);
        }}
      />
      <ErrorMessage error={actions.error} />
      <ConfirmDialog
        open={asking === "rename"}
        title={`Rename ${flow.name}`}
        confirmLabel="Rename"
        onConfirm={() => trimmed && trimmed !== flow.name && actions.change.mutate({ name: trimmed })}
        onCancel={() => setAsking(null)}
      >
        <label>
          New name
          <input value={name} maxLength={200} required onChange={(e) => setName(e.target.value)} />
        </label>
        <ErrorMessage error={actions.error} />
      </ConfirmDialog>
      {asking === "tags" && (
        <FlowTagsDialog flow={flow} suggestions={props.tagsInUse} onDone={finish} onCancel={() => setAsking(null)} />
      )}
      <ConfirmDialog
        open={asking === "delete"}
        title={`Delete ${flow.name}?`}
        confirmLabel="Delete flow"
        onConfirm={() => actions.remove.mutate()}
        onCancel={() => setAsking(null)}
      >
        <p>
          Its versions, hook and schedule are deleted. Its running and waiting runs are cancelled first; its past runs
          stay listed under Runs, readable with the flow&apos;s name and version. This cannot be undone.
        </p>
        <ErrorMessage error={actions.error} />
      </ConfirmDialog>
    </div>
  );
}
