import { lazy, Suspense, useMemo, useState } from "react";
import { describeError } from "../api";
import { formatJson } from "../format";
import { useSession } from "../session";
import { ErrorMessage } from "../ui/status-badge";
import { RunWaits } from "../waits/waits";
import { RerunDialog } from "./rerun-dialog";
import { RunActions } from "./run-actions";
import { RunCost } from "./run-cost";
import { RunHeading } from "./run-heading";
import { RunItems } from "./run-items";
import { RunLogs } from "./run-logs";
import { RunOutcome } from "./run-outcome";
import { runProgress, unended, type NodeProgress } from "./run-progress";
import { useLatestVersion, useRunReads } from "./run-reads";
import { RunSteps } from "./run-steps";
import { Timeline } from "./timeline";

// The canvas (React Flow) loads when a run page first shows one.
const RunCanvas = lazy(() => import("./run-canvas"));

/** A run's page; another run (a retry opened from it) starts afresh: no node open, no earlier error shown. */
export function RunDetailPage({ id }: { id: string }) {
  return <RunDetailView key={id} id={id} />;
}

/** Which nodes' details are open: failed ones start open, a click on the canvas opens one. */
function useOpenNodes(nodes: NodeProgress[]) {
  const [opened, setOpened] = useState<Map<string, boolean>>(new Map());
  const open = new Set(nodes.filter((n) => opened.get(n.id) ?? n.state === "failed").map((n) => n.id));
  const setOpen = (nodeId: string, isOpen: boolean) => setOpened((current) => new Map(current).set(nodeId, isOpen));
  const showNode = (nodeId: string) => {
    setOpen(nodeId, true);
    requestAnimationFrame(() =>
      document.getElementById(`step-${nodeId}`)?.scrollIntoView({ behavior: "smooth", block: "start" }),
    );
  };
  return { open, setOpen, showNode };
}

function RunDetailView({ id }: { id: string }) {
  const { run, steps, running } = useRunReads(id);
  const status = run.data?.status;
  const nodes = useMemo(() => runProgress(steps.data, status), [steps.data, status]);
  const { open, setOpen, showNode } = useOpenNodes(nodes);
  const flow = useLatestVersion(run.data?.flow_id, running);
  // Viewers only read runs: the actions that start or stop one are not theirs (the API says 403).
  const role = useSession().data?.workspace.role;
  const canAct = role !== undefined && role !== "viewer";
  // The rerun dialog: opened on a node, or on the start (null); closed (undefined).
  const [rerunFrom, setRerunFrom] = useState<string | null | undefined>(undefined);

  if (run.error) return <ErrorMessage error={describeError(run.error)} />;
  if (!run.data) return <p className="loading">Loading the run…</p>;
  const r = run.data;
  const labelOf = (nodeId: string) => nodes.find((n) => n.id === nodeId)?.label ?? nodeId;
  const graph = steps.data?.nodes ? steps.data : undefined;
  const ended = !unended(r.status);
  return (
    <section className="run-detail">
      <RunHeading run={r} labelOf={labelOf} />
      <RunWaits runId={id} running={running} />
      <RunActions run={r} latest={flow.data?.version} canAct={canAct} onRerun={() => setRerunFrom(null)} />
      <RerunDialog
        from={rerunFrom}
        run={r}
        nodes={nodes}
        graph={graph}
        latest={flow.data?.version}
        latestDefinition={flow.data?.definition}
        onClose={() => setRerunFrom(undefined)}
      />
      <RunOutcome run={r} labelOf={labelOf} />
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
