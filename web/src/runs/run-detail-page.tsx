import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useEffect, useMemo, useState } from "react";
import { Link, useLocation } from "wouter";
import { client, describeError, read } from "../api";
import { RunLogs } from "./run-logs";
import { useRunEvents } from "./run-events";
import { runProgress, unended } from "./run-progress";
import { RunItems } from "./run-items";
import { RunSteps } from "./run-steps";
import { ErrorMessage, StatusBadge } from "../ui/status-badge";
import { errorText } from "./step-error";
import { Timeline } from "./timeline";
import { formatDuration, formatJson, formatTime } from "../format";
import type { RunDetail } from "../types";
import { pollInterval } from "../ui/poll-interval";
import { RunWaits } from "../waits/waits";
import { RunCost } from "./run-cost";
import { RerunDialog, useRerun, versionNote } from "./rerun-dialog";
import { useSession } from "../session";

// The canvas (React Flow) loads when a run page first shows one.
const RunCanvas = lazy(() => import("./run-canvas"));

/** The node a failed run stopped at, from its error ({ node_id, message }), if it names one. */
const failedNodeOf = (error: unknown): string | undefined => {
  const nodeId = (error as { node_id?: unknown } | null)?.node_id;
  return typeof nodeId === "string" ? nodeId : undefined;
};

/** A run's page; another run (a retry opened from it) starts afresh: no node open, no earlier error shown. */
export function RunDetailPage({ id }: { id: string }) {
  return <RunDetailView key={id} id={id} />;
}

/** How long after a cancel the page still reads the steps its workflow writes as it stops. */
const SETTLING_MS = 20_000;

/** Whether the run was cancelled moments ago: its workflow may still be writing its last steps. */
const settling = (run: RunDetail | undefined) =>
  run?.status === "cancelled" && !!run.finished_at && Date.now() - Date.parse(run.finished_at) < SETTLING_MS;

function RunDetailView({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  // While the run's event stream delivers, neither query polls; without it (or once it failed) both
  // do. It opens once the run was read (a run of another workspace is a plain 404) and is running.
  const known = queryClient.getQueryData<RunDetail>(["run", id]);
  const streaming = useRunEvents(id, unended(known?.status));
  const run = useQuery({
    queryKey: ["run", id],
    queryFn: () => read(client.GET("/api/runs/{id}", { params: { path: { id } } })).then((body) => body.run),
    refetchInterval: (query) =>
      (query.state.data && !unended(query.state.data.status)) || streaming
        ? false
        : pollInterval(true, query.state.fetchFailureCount),
  });
  const running = !run.data || unended(run.data.status);
  const steps = useQuery({
    queryKey: ["run", id, "steps"],
    queryFn: () => read(client.GET("/api/runs/{id}/steps", { params: { path: { id } } })),
    // One more read after the run ends, so the last steps are there; a cancelled run's workflow
    // writes its skipped nodes after the cancel ended the record, so those are read for a while.
    refetchInterval: (query) =>
      (running && !streaming) || settling(run.data) ? pollInterval(true, query.state.fetchFailureCount) : false,
  });
  // A change of the run's status (its end above all) reads the steps and the log again at once, as
  // the agents page re-reads what an agent run wrote when it ends.
  const status = run.data?.status;
  useEffect(() => {
    if (!status) return;
    void queryClient.invalidateQueries({ queryKey: ["run", id, "steps"] });
    void queryClient.invalidateQueries({ queryKey: ["run", id, "logs"] });
    void queryClient.invalidateQueries({ queryKey: ["run", id, "items"] });
  }, [status, id, queryClient]);

  const nodes = useMemo(() => runProgress(steps.data, status), [steps.data, status]);
  // Which nodes' details are open: failed ones start open, a click on the canvas opens one.
  const [opened, setOpened] = useState<Map<string, boolean>>(new Map());
  const open = new Set(nodes.filter((n) => opened.get(n.id) ?? n.state === "failed").map((n) => n.id));
  const setOpen = (nodeId: string, isOpen: boolean) => setOpened((current) => new Map(current).set(nodeId, isOpen));
  const showNode = (nodeId: string) => {
    setOpen(nodeId, true);
    requestAnimationFrame(() =>
      document.getElementById(`step-${nodeId}`)?.scrollIntoView({ behavior: "smooth", block: "start" }),
    );
  };

  // The flow's current version: a rerun or retry may run it instead of the run's.
  const flowId = run.data?.flow_id;
  const flow = useQuery({
    queryKey: ["flow", flowId, "current-version"],
    queryFn: () =>
      read(client.GET("/api/flows/{id}", { params: { path: { id: flowId! } } })).then((body) => ({
        version: body.version,
        definition: body.definition,
      })),
    enabled: flowId !== undefined && !running,
  });
  // Viewers only read runs: the actions that start or stop one are not theirs (the API says 403).
  const role = useSession().data?.workspace.role;
  const canAct = role !== undefined && role !== "viewer";
  // The rerun dialog: opened on a node, or on the start (null); closed (undefined).
  const [rerunFrom, setRerunFrom] = useState<string | null | undefined>(undefined);
  const retryLatest = useRerun(id);

  const retry = useMutation({
    mutationFn: () => read(client.POST("/api/runs/{id}/retry", { params: { path: { id } } })),
    onSuccess: (started) => navigate(`/runs/${started.run_id}`),
  });
  const cancel = useMutation({
    mutationFn: () => read(client.POST("/api/runs/{id}/cancel", { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["run", id] }),
  });

  if (run.error) return <ErrorMessage error={describeError(run.error)} />;
  if (!run.data) return <p className="loading">Loading the run…</p>;
  const r = run.data;
  const labelOf = (nodeId: string) => nodes.find((n) => n.id === nodeId)?.label ?? nodeId;
  const failedAt = failedNodeOf(r.error);
  const graph = steps.data?.nodes ? steps.data : undefined;
  const latest = flow.data?.version;
  const newer = latest !== undefined && latest > r.version;
  const ended = !unended(r.status);
  return (
    <section className="run-detail">
      <p>
        <Link href="/runs">← Runs</Link>
      </p>
      <h1>
        Run <code>{r.id}</code> <StatusBadge status={r.status} />
      </h1>
      <p className="muted">
        <Link href={`/flows/${r.flow_id}`}>{r.flow_name}</Link> v{r.version} · {r.trigger} · started{" "}
        {formatTime(r.started_at)} · {formatDuration(r.duration_ms)}
        {r.retry_of && (
          <>
            {" "}
            · retry of <Link href={`/runs/${r.retry_of}`}>{r.retry_of}</Link>
          </>
        )}
        {!r.retry_of && r.rerun_of && (
          <span className="rerun-of">
            {" "}
            · Rerun of <Link href={`/runs/${r.rerun_of}`}>{r.rerun_of}</Link> from{" "}
            {r.rerun_from_node
              ? labelOf(r.rerun_from_node)
              : r.rerun?.from === "failed"
                ? "the failed node"
                : "the start"}{" "}
            on version {r.version}
            {r.rerun && r.rerun.of_version !== r.version && ` (it ran version ${r.rerun.of_version})`}
          </span>
        )}
        {r.parent_run_id && (
          <>
            {" "}
            · called by run <Link href={`/runs/${r.parent_run_id}`}>{r.parent_run_id}</Link>
          </>
        )}
        {r.temporal_url && (
          <>
            {" "}
            ·{" "}
            <a href={r.temporal_url} target="_blank" rel="noreferrer">
              Temporal UI
            </a>
          </>
        )}
      </p>
      {r.queue && (
        <p className="run-queue" role="status">
          Queued: {r.queue.reason} (position {r.queue.position})
        </p>
      )}
      <RunWaits runId={id} running={running} />
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
          <button type="button" onClick={() => setRerunFrom(null)}>
            Rerun…
          </button>
        )}
        {canAct && ended && newer && <span className="hint">{versionNote(r.version, latest)}</span>}
      </div>
      <ErrorMessage
        error={
          retry.error
            ? describeError(retry.error)
            : retryLatest.error
              ? describeError(retryLatest.error)
              : cancel.error
                ? describeError(cancel.error)
                : null
        }
      />
      <RerunDialog
        from={rerunFrom}
        run={r}
        nodes={nodes}
        graph={graph}
        latest={latest}
        latestDefinition={flow.data?.definition}
        onClose={() => setRerunFrom(undefined)}
      />
      {r.status === "cancelled" ? (
        <div className="notice run-cancelled" role="status">
          <strong>The run was cancelled</strong>
          {/* The engine's own words say no more than the heading; anything else is worth showing. */}
          {!/cancelled/i.test(errorText(r.error)) && <>: {errorText(r.error)}</>}
        </div>
      ) : (
        r.error !== null &&
        r.error !== undefined && (
          <div className="run-error" role="alert">
            <strong>The run failed{failedAt ? ` at ${labelOf(failedAt)}` : ""}:</strong> {errorText(r.error)}
          </div>
        )
      )}
      {graph && (
        <Suspense fallback={<p className="loading">Loading the canvas…</p>}>
          <RunCanvas graph={graph} progress={nodes} onSelect={showNode} />
        </Suspense>
      )}
      <h2>Steps</h2>
      <ErrorMessage error={steps.error ? describeError(steps.error) : null} />
      {nodes.length === 0 ? (
        <p className="empty">{running ? "Waiting for the first node to start…" : "This run recorded no steps."}</p>
      ) : (
        <RunSteps
          nodes={nodes}
          runId={r.id}
          running={running}
          open={open}
          onOpenChange={setOpen}
          onRerunFrom={canAct && ended ? setRerunFrom : undefined}
        />
      )}
      <RunItems runId={r.id} running={running} labelOf={labelOf} />
      <RunCost runId={r.id} running={running} labelOf={labelOf} />
      <h2>Timeline</h2>
      <Timeline steps={steps.data?.items ?? []} now={Date.now()} labelOf={labelOf} />
      <h2>Log</h2>
      <RunLogs runId={r.id} running={running} nodes={nodes} />
      {r.status === "success" && (
        <>
          <h2>Output</h2>
          <pre className="run-output">{formatJson(r.output)}</pre>
        </>
      )}
    </section>
  );
}
