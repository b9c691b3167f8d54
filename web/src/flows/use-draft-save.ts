// Saving the draft (PUT /api/flows/{id} with publish false): the canvas, or a stored version
// restored as the new draft; production keeps the published version until Publish. Ctrl+S (⌘S)
// saves from anywhere in the editor. A save refused because another version was saved meanwhile
// offers to load that version or to save again on top of it (useSaveConflict).
import { useMutation } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { ApiError, client, describeError, read } from "../api";
import { toDefinition, type EditorEdge, type EditorNode, type FlowSettings } from "../components/flow-graph";
import type { FlowDefinition, FlowDetail } from "../types";
import { restoredNotice, savedNotice } from "./model/publishing";
import type { DraftChecks, DraftGraph } from "./use-draft-graph";
import type { FlowVersions } from "./use-flow-versions";
import { isVersionConflict, useSaveConflict, type SaveConflict } from "./use-save-conflict";

interface SaveChange {
  /** A stored version's definition to save as the draft (restore), instead of the canvas. */
  restore?: { version: number; definition: FlowDefinition };
  /** What the change is, kept with the new version (empty: none). */
  note?: string;
  /** The version saved against: the head as the editor knows it unless told (a save on top of another's). */
  against?: number;
  sent: { nodes: EditorNode[]; edges: EditorEdge[]; settings: FlowSettings };
}

/** The draft save and what its answer changes: the versions, the canvas saved, the notice. */
function useSaveMutation(
  flow: FlowDetail,
  graph: DraftGraph,
  checks: DraftChecks,
  versions: FlowVersions,
  conflict: SaveConflict,
) {
  return useMutation({
    mutationFn: (change: SaveChange) =>
      read(
        client.PUT("/api/flows/{id}", {
          params: { path: { id: flow.id } },
          body: {
            version: change.against ?? versions.head,
            publish: false,
            definition:
              change.restore?.definition ?? toDefinition(change.sent.nodes, change.sent.edges, change.sent.settings),
            ...(change.note?.trim() ? { note: change.note.trim() } : {}),
          },
        }),
      ) as Promise<FlowDetail>,
    onSuccess: (saved, change) => {
      const state = versions.remember(saved);
      conflict.clear();
      graph.setDirty(false);
      checks.problems.clear();
      checks.drafts.saved();
      if (change.restore) {
        graph.load(change.restore.definition);
        graph.setNotice(restoredNotice(change.restore.version, state));
      } else {
        graph.setNotice(savedNotice(state));
      }
    },
    onError: (error, change) => {
      if (change.restore) return;
      if (isVersionConflict(error)) void conflict.found(error);
      else checks.problems.report(error, change.sent);
    },
  });
}

/** Ctrl+S (⌘S) calls `save`, from anywhere in the editor (a field being typed in too), not the browser's page. */
function useSaveKey(save: () => void, saving: boolean) {
  const saveRef = useRef(save);
  saveRef.current = save;
  const savingRef = useRef(saving);
  savingRef.current = saving;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey || event.key.toLowerCase() !== "s")
        return;
      event.preventDefault();
      if (!savingRef.current) saveRef.current();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}

export function useDraftSave(flow: FlowDetail, graph: DraftGraph, checks: DraftChecks, versions: FlowVersions) {
  const conflict = useSaveConflict(flow, graph, checks, versions);
  const mutation = useSaveMutation(flow, graph, checks, versions, conflict);
  const { nodes, edges, settings } = graph;
  // The draft's note, typed beside Save; gone once a save went through.
  const [note, setNote] = useState("");
  /**
   * Saves the canvas as the draft, once the editor's own checks find nothing to fix; `then` gets
   * the API's answer (Publish goes on from there); `against`: the version to save on top of.
   */
  const saveCanvas = (then?: (saved: FlowDetail) => void, against?: number) => {
    graph.setNotice(null);
    // Both checks run, so that everything to fix shows at once.
    const fieldsRead = checks.drafts.readyToSave();
    if (checks.problems.readyToSave() && fieldsRead)
      mutation.mutate(
        { note, sent: { nodes, edges, settings }, ...(against === undefined ? {} : { against }) },
        {
          onSuccess: (saved) => {
            setNote("");
            then?.(saved);
          },
        },
      );
  };
  useSaveKey(() => saveCanvas(), mutation.isPending);
  /** Saves a stored version's definition as the draft; false when the person keeps their changes. */
  const restoreVersion = (restore: { version: number; definition: FlowDefinition }) => {
    const question = `Discard your unsaved changes and restore version ${restore.version} as the draft?`;
    if (graph.dirty && !window.confirm(question)) return false;
    mutation.mutate({ restore, sent: { nodes, edges, settings } });
    return true;
  };
  /** The version saved meanwhile: loaded on the canvas (once confirmed), or the canvas saved on top of it. */
  const meanwhile = {
    saved: conflict.conflict,
    load: () =>
      conflict.loadSaved(() => {
        mutation.reset();
        setNote("");
      }),
    saveOnTop: () => conflict.conflict && saveCanvas(undefined, conflict.conflict.version),
    isLoading: conflict.isLoading,
    loadError: conflict.loadError,
  };
  return {
    saveCanvas,
    restoreVersion,
    meanwhile,
    note,
    setNote,
    isPending: mutation.isPending,
    error: saveError(mutation.error, checks, mutation.variables),
  };
}

/** The API's headline ("The flow definition is invalid") once, its details being on the canvas; gone when none of them stands any more. */
function saveError(error: Error | null, checks: DraftChecks, change: SaveChange | undefined): string | null {
  // A version saved meanwhile under the canvas is told with what to do about it (meanwhile).
  if (isVersionConflict(error) && !change?.restore) return null;
  if (error instanceof ApiError && error.details.length > 0)
    return checks.problems.reportedCount > 0 ? error.message : null;
  return error ? describeError(error) : null;
}
