// Editing a flow's tags, from its flows-list row or the editor's bar: add one (type it, Enter; tags
// already in use are suggested), remove one (its "×"), then save. The save sends only the (published)
// version read and the tags, never a definition, so a tag change makes no new flow version; the
// server checks the tags.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useRef, useState } from "react";
import { ApiError, client, describeError, read } from "../api";
import type { FlowDetail } from "../types";
import { ConfirmDialog } from "../ui/confirm-dialog";
import { ErrorMessage } from "../ui/status-badge";

export interface TaggedFlow {
  id: string;
  name: string;
  version: number;
  tags: string[];
}

/** Where the flow's tags are edited: the editor reads the flow it shows again after a stale save. */
interface TagsSaved {
  onDone: (notice: string) => void;
  /** The flow as saved (the editor keeps it). */
  onSaved?: (saved: FlowDetail) => void;
  /** After a stale version (409): reads the flow again (the lists are read again in any case). */
  onStale?: () => void;
}

/** Saves the tags; a stale version (409) reloads the lists (and `onStale`) and says so through `onDone`. */
function useSaveTags(flow: TaggedFlow, { onDone, onSaved, onStale }: TagsSaved) {
  const queryClient = useQueryClient();
  const reload = () => void queryClient.invalidateQueries({ queryKey: ["flows"] });
  return useMutation({
    mutationFn: (tags: string[]) =>
      read(client.PUT("/api/flows/{id}", { params: { path: { id: flow.id } }, body: { version: flow.version, tags } })),
    onSuccess: (saved) => {
      reload();
      onSaved?.(saved as FlowDetail);
      onDone(saved.tags.length > 0 ? `Tags of ${saved.name}: ${saved.tags.join(", ")}.` : `${saved.name} has no tags.`);
    },
    onError: (error) => {
      if (!(error instanceof ApiError && error.status === 409)) return;
      reload();
      onStale?.();
      const reread = onStale ? "it is read again" : "the list is reloaded";
      onDone(
        `${flow.name} was changed elsewhere (${error.message}); ${reread}: its tags were not saved, edit them again.`,
      );
    },
  });
}

/** The tags being edited, added to (trimmed, in lower case, once each) and removed from. */
function useTagList(initial: string[]) {
  const [tags, setTags] = useState(initial);
  const add = (text: string) => {
    const tag = text.trim().toLowerCase();
    if (tag && !tags.includes(tag)) setTags([...tags, tag]);
  };
  const remove = (tag: string) => setTags(tags.filter((t) => t !== tag));
  return { tags, add, remove };
}

/** The tags being edited, each with a button removing it. */
function TagList(props: { label: string; tags: string[]; onRemove: (tag: string) => void }) {
  if (props.tags.length === 0) return <p className="muted">No tags.</p>;
  return (
    <ul className="tag-list" aria-label={props.label}>
      {props.tags.map((tag) => (
        <li key={tag} className="badge tag">
          {tag}
          <button type="button" aria-label={`Remove tag ${tag}`} onClick={() => props.onRemove(tag)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

/** The modal editing `flow`'s tags, shown while mounted; `suggestions` are other tags in use. */
export function FlowTagsDialog(props: TagsSaved & { flow: TaggedFlow; suggestions: string[]; onCancel: () => void }) {
  const { flow } = props;
  const list = useTagList(flow.tags);
  const [draft, setDraft] = useState("");
  const input = useRef<HTMLInputElement>(null);
  const save = useSaveTags(flow, props);
  const suggestionsId = useId();
  const conflict = save.error instanceof ApiError && save.error.status === 409;
  const addDraft = () => {
    save.reset();
    list.add(draft);
    setDraft("");
  };
  return (
    <ConfirmDialog
      open
      title={`Tags of ${flow.name}`}
      confirmLabel="Save tags"
      onConfirm={() => save.mutate(list.tags)}
      onCancel={props.onCancel}
    >
      <div className="tag-editor">
        <label>
          Add a tag
          <span className="toolbar">
            <input
              ref={input}
              value={draft}
              list={suggestionsId}
              autoComplete="off"
              onChange={(e) => setDraft(e.target.value)}
              onKeyDown={(e) => {
                if (e.key !== "Enter") return;
                e.preventDefault();
                addDraft();
              }}
            />
            <button type="button" onClick={addDraft}>
              Add
            </button>
          </span>
        </label>
        <datalist id={suggestionsId}>
          {props.suggestions
            .filter((tag) => !list.tags.includes(tag))
            .map((tag) => (
              <option key={tag} value={tag} />
            ))}
        </datalist>
        <p className="small">Enter adds it. At most 20 tags of up to 40 letters, digits, spaces and _.:-.</p>
        <TagList
          label={`Tags of ${flow.name}`}
          tags={list.tags}
          onRemove={(tag) => {
            save.reset();
            list.remove(tag);
            // The button goes away with its tag: keep the focus in the dialog.
            input.current?.focus();
          }}
        />
        <ErrorMessage error={save.error && !conflict ? describeError(save.error) : null} />
      </div>
    </ConfirmDialog>
  );
}
