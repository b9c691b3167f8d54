// A draft save refused because another version was saved meanwhile (409 version_conflict, someone
// else's save or another tab's): the flow is read again, so that the editor knows the new head, and
// the version saved meanwhile with its author; from there the person loads that version (their
// canvas discarded, once confirmed) or saves their canvas again as a new draft on top of it.
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError, client, describeError, read } from "../api";
import type { FlowDetail, FlowVersion } from "../types";
import { headVersion, loadedNotice, loadSavedQuestion } from "./model/publishing";
import type { DraftChecks, DraftGraph } from "./use-draft-graph";
import type { FlowVersions } from "./use-flow-versions";

/** Whether a save or a publish was refused because the flow moved past the version it was made against. */
export const isVersionConflict = (error: unknown): error is ApiError =>
  error instanceof ApiError && error.status === 409 && error.code === "version_conflict";

/** What a refused save or publish says the flow is at now. */
export const currentVersionOf = (error: ApiError) =>
  typeof error.body.current_version === "number" ? error.body.current_version : undefined;

/** The version saved meanwhile, and who saved it (null when it could not be read). */
export interface SavedMeanwhile {
  version: number;
  author: string | null;
}

const readVersion = (flowId: string, version: number) =>
  read(
    client.GET("/api/flows/{id}/versions/{version}", { params: { path: { id: flowId, version } } }),
  ) as Promise<FlowVersion>;

export function useSaveConflict(flow: FlowDetail, graph: DraftGraph, checks: DraftChecks, versions: FlowVersions) {
  const [conflict, setConflict] = useState<SavedMeanwhile | null>(null);
  /**
   * After a save refused as stale: the flow as it is now (the next save goes on top of its head),
   * and that head, the version saved meanwhile, with its author. Never throws.
   */
  const found = async (error: ApiError) => {
    const fresh = (await read(client.GET("/api/flows/{id}", { params: { path: { id: flow.id } } })).catch(
      () => null,
    )) as FlowDetail | null;
    // Read after the refusal: the head now, even when yet another save followed the one refused for;
    // unread, the version the refusal named.
    const version = fresh ? headVersion(versions.remember(fresh)) : (currentVersionOf(error) ?? versions.head);
    const saved = await readVersion(flow.id, version).catch(() => null);
    setConflict({ version, author: saved?.author ?? null });
  };
  const load = useMutation({
    mutationFn: (version: number) => readVersion(flow.id, version),
    onSuccess: (loaded) => {
      graph.load(loaded.definition);
      graph.setDirty(false);
      checks.problems.clear();
      checks.drafts.saved();
      setConflict(null);
      graph.setNotice(loadedNotice(loaded.version, versions.state));
    },
  });
  /** Loads the version saved meanwhile on the canvas, once the person agrees to discard theirs; `then` after it. */
  const loadSaved = (then: () => void) => {
    if (!conflict || !window.confirm(loadSavedQuestion(conflict.version))) return;
    load.mutate(conflict.version, { onSuccess: then });
  };
  return {
    conflict,
    found,
    loadSaved,
    clear: () => setConflict(null),
    isLoading: load.isPending,
    loadError: load.error ? describeError(load.error) : null,
  };
}

export type SaveConflict = ReturnType<typeof useSaveConflict>;
