// Going live (POST /api/flows/{id}/publish): the draft, saved first when the canvas has unsaved
// changes, or an older version (a rollback, which keeps the draft); and the flow's status, which
// changes alone (PUT with the published version and the status, never the canvas).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { client, describeError, read } from "../api";
import type { FlowDetail, FlowStatus } from "../types";
import { publishConflictNotice, publishedNotice, rollbackQuestion } from "./model/publishing";
import type { DraftGraph } from "./use-draft-graph";
import type { useDraftSave } from "./use-draft-save";
import type { FlowVersions } from "./use-flow-versions";
import { currentVersionOf, isVersionConflict } from "./use-save-conflict";

function usePublishMutation(flow: FlowDetail, graph: DraftGraph, versions: FlowVersions) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (publish: { version: number; published: number }) =>
      read(
        client.POST("/api/flows/{id}/publish", {
          params: { path: { id: flow.id } },
          body: { version: publish.version, published_version: publish.published },
        }),
      ) as Promise<FlowDetail>,
    onMutate: () => graph.setNotice(null),
    onSuccess: (published) => graph.setNotice(publishedNotice(versions.remember(published))),
    onError: async (error) => {
      if (!isVersionConflict(error)) return;
      // Another version went live meanwhile: read the flow again, so the next Publish knows it.
      const fresh = (await read(client.GET("/api/flows/{id}", { params: { path: { id: flow.id } } }))) as FlowDetail;
      versions.remember(fresh);
      void queryClient.invalidateQueries({ queryKey: ["flows"] });
      graph.setNotice(publishConflictNotice(currentVersionOf(error)));
    },
  });
}

function useStatusMutation(flow: FlowDetail, graph: DraftGraph, versions: FlowVersions) {
  return useMutation({
    mutationFn: (status: FlowStatus) =>
      read(
        client.PUT("/api/flows/{id}", {
          params: { path: { id: flow.id } },
          body: { version: versions.published, status },
        }),
      ) as Promise<FlowDetail>,
    onMutate: () => graph.setNotice(null),
    onSuccess: (saved) => {
      versions.remember(saved);
      graph.setNotice(saved.status === "active" ? "Activated." : "Deactivated.");
    },
  });
}

export function usePublish(
  flow: FlowDetail,
  graph: DraftGraph,
  versions: FlowVersions,
  save: ReturnType<typeof useDraftSave>,
) {
  const mutation = usePublishMutation(flow, graph, versions);
  const status = useStatusMutation(flow, graph, versions);
  /** Publishes the draft, saving the canvas as the draft first when it has unsaved changes. */
  const publishDraft = () => {
    const published = versions.published;
    if (graph.dirty) {
      save.saveCanvas((saved) => {
        if (saved.draft_version !== null) mutation.mutate({ version: saved.draft_version, published });
      });
    } else if (versions.draft !== null) mutation.mutate({ version: versions.draft, published });
  };
  /** Publishes an older version in place of the published one, once confirmed; the draft stays. */
  const rollBack = (version: number) => {
    if (!window.confirm(rollbackQuestion(version, versions.state))) return false;
    mutation.mutate({ version, published: versions.published });
    return true;
  };
  const toggleStatus = () => status.mutate(versions.status === "active" ? "inactive" : "active");
  // A conflict is told in the notice, with what production runs now.
  const error = (isVersionConflict(mutation.error) ? null : mutation.error) ?? status.error;
  return {
    publishDraft,
    rollBack,
    toggleStatus,
    /** Whether Publish has something to publish: a draft, or unsaved changes that become one. */
    canPublish: graph.dirty || versions.draft !== null,
    isPending: mutation.isPending || status.isPending,
    error: error ? describeError(error) : null,
  };
}
