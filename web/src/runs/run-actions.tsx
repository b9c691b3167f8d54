// A run page's actions: cancel, retry (on the run's version or the latest), run again, rerun, and
// "Open in editor" (the flow's editor with this run's node outputs as its sample, ready to pin).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Link, useLocation } from "wouter";
import { client, describeError, read } from "../api";
import type { RunDetail } from "../types";
import { ErrorMessage } from "../ui/status-badge";
import { useRerun, versionNote } from "./rerun";
import { unended } from "./run-progress";

function useRunMutations(id: string) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const retry = useMutation({
    mutationFn: () => read(client.POST("/api/runs/{id}/retry", { params: { path: { id } } })),
    onSuccess: (started) => navigate(`/runs/${started.run_id}`),
  });
  const cancel = useMutation({
    mutationFn: () => read(client.POST("/api/runs/{id}/cancel", { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["run", id] }),
  });
  const retryLatest = useRerun(id);
  const failure = retry.error ?? retryLatest.error ?? cancel.error;
  return { retry, cancel, retryLatest, error: failure ? describeError(failure) : null };
}

export function RunActions(props: {
  run: RunDetail;
  /** The flow's current version; undefined while unknown. */
  latest: number | undefined;
  /** Viewers only read runs: the actions that start or stop one are not theirs (the API says 403). */
  canAct: boolean;
  onRerun: () => void;
}) {
  const { run: r, latest, canAct } = props;
  const { retry, cancel, retryLatest, error } = useRunMutations(r.id);
  const newer = latest !== undefined && latest > r.version;
  const ended = !unended(r.status);
  return (
    <>
      <div className="toolbar">
        {unended(r.status) && (
          <button type="button" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
            Cancel run
          </button>
        )}
        {canAct && r.status === "failed" && (
          <button type="button" onClick={() => retry.mutate()} disabled={retry.isPending}>
            Retry from the failed node
          </button>
        )}
        {canAct && r.status === "failed" && newer && (
          <button
            type="button"
            onClick={() => retryLatest.mutate({ from_failed: true, version: "latest" })}
            disabled={retryLatest.isPending}
          >
            Retry on the latest version (v{latest})
          </button>
        )}
        {canAct && r.status === "cancelled" && (
          <>
            <button type="button" onClick={() => retry.mutate()} disabled={retry.isPending}>
              Run again
            </button>
            <span className="hint">
              Same version and input; the nodes that finished before the cancel are carried over.
            </span>
          </>
        )}
        {canAct && ended && (
          <button type="button" onClick={props.onRerun}>
            Rerun…
          </button>
        )}
        {canAct && ended && newer && <span className="hint">{versionNote(r.version, latest)}</span>}
        {canAct && ended && (
          <Link
            href={`/flows/${r.flow_id}?from_run=${encodeURIComponent(r.id)}`}
            title="The flow's editor with this run's node outputs as the input panel's sample, ready to pin"
          >
            Open in editor
          </Link>
        )}
      </div>
      <ErrorMessage error={error} />
    </>
  );
}
