// Saving the draft (PUT /api/flows/{id}): the canvas, a status change, or a stored version restored
// as a new one; Ctrl+S (⌘S) saves from anywhere in the editor.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { ApiError, client, describeError, read } from "../api";
import { toDefinition, type EditorEdge, type EditorNode, type FlowSettings } from "../components/flow-graph";
import type { FlowDefinition, FlowDetail, FlowStatus } from "../types";
import type { DraftChecks, DraftGraph } from "./use-draft-graph";

interface SaveChange {
  status?: FlowStatus;
  /** A stored version's definition to save as the new one (restore), instead of the canvas. */
  restore?: { version: number; definition: FlowDefinition };
  /** What the change is, kept with the new version (empty: none). */
  note?: string;
  sent: { nodes: EditorNode[]; edges: EditorEdge[]; settings: FlowSettings };
}

/** The save call and what its answer changes: the version, the status, the notice, the lists read again. */
function useSaveMutation(flow: FlowDetail, graph: DraftGraph, checks: DraftChecks) {
  const queryClient = useQueryClient();
  const [version, setVersion] = useState(flow.version);
  const [status, setStatus] = useState(flow.status);
  const mutation = useMutation({
    mutationFn: (change: SaveChange) =>
      read(
        client.PUT("/api/flows/{id}", {
          params: { path: { id: flow.id } },
          body: {
            version,
            definition:
              change.restore?.definition ?? toDefinition(change.sent.nodes, change.sent.edges, change.sent.settings),
            ...(change.status ? { status: change.status } : {}),
            ...(change.note?.trim() ? { note: change.note.trim() } : {}),
          },
        }),
      ) as Promise<FlowDetail>,
    onSuccess: (saved, change) => {
      const before = version;
      setVersion(saved.version);
      setStatus(saved.status);
      graph.setDirty(false);
      checks.problems.clear();
      checks.drafts.saved();
      if (change.restore) {
        graph.load(saved.definition);
        graph.setNotice(
          saved.version === before
            ? `Version ${change.restore.version} is what is saved already: nothing changed.`
            : `Restored version ${change.restore.version} as version ${saved.version}.`,
        );
      } else {
        graph.setNotice(`Saved: version ${saved.version}.`);
      }
      queryClient.setQueryData(["flow", flow.id], saved);
      void queryClient.invalidateQueries({ queryKey: ["flows"] });
      void queryClient.invalidateQueries({ queryKey: ["flow", flow.id, "versions"] });
    },
    onError: (error, change) => {
      if (!change.restore) checks.problems.report(error, change.sent);
    },
  });
  return { mutation, version, status };
}

export function useDraftSave(flow: FlowDetail, graph: DraftGraph, checks: DraftChecks) {
  const { mutation, version, status } = useSaveMutation(flow, graph, checks);
  const { nodes, edges, settings } = graph;
  // The next version's note, typed beside Save; gone once a save went through.
  const [note, setNote] = useState("");
  /** Saves the canvas (and a status change), once the editor's own checks find nothing to fix. */
  const saveCanvas = (status?: FlowStatus) => {
    graph.setNotice(null);
    // Both checks run, so that everything to fix shows at once.
    const fieldsRead = checks.drafts.readyToSave();
    if (checks.problems.readyToSave() && fieldsRead)
      mutation.mutate({ status, note, sent: { nodes, edges, settings } }, { onSuccess: () => setNote("") });
  };
  const saveRef = useRef(saveCanvas);
  saveRef.current = saveCanvas;
  const savingRef = useRef(mutation.isPending);
  savingRef.current = mutation.isPending;
  useEffect(() => {
    // Ctrl+S (⌘S) saves, from anywhere in the editor (a field being typed in too), not the browser's page.
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey || event.key.toLowerCase() !== "s")
        return;
      event.preventDefault();
      if (!savingRef.current) saveRef.current();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  /** Saves a stored version's definition as a new version; false when the person keeps their changes. */
  const restoreVersion = (restore: { version: number; definition: FlowDefinition }) => {
    const question = `Discard your unsaved changes and restore version ${restore.version}?`;
    if (graph.dirty && !window.confirm(question)) return false;
    mutation.mutate({ restore, sent: { nodes, edges, settings } });
    return true;
  };
  return {
    version,
    status,
    saveCanvas,
    restoreVersion,
    note,
    setNote,
    isPending: mutation.isPending,
    error: saveError(mutation.error, checks),
  };
}

/** The API's headline ("The flow definition is invalid") once, its details being on the canvas; gone when none of them stands any more. */
function saveError(error: Error | null, checks: DraftChecks): string | null {
  if (error instanceof ApiError && error.details.length > 0)
    return checks.problems.reportedCount > 0 ? error.message : null;
  return error ? describeError(error) : null;
}
