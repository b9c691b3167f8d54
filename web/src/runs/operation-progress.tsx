// A bulk operation's progress (POST /api/runs/rerun answers one): read every second while it runs,
// for a bounded time, with its counts, why runs were skipped, and a Cancel button while it runs.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { client, describeError, read } from "../api";
import { ErrorMessage } from "../ui/status-badge";

/** How long the view keeps asking (one read a second): past it, a Refresh button reads again. */
export const OPERATION_POLLS = 900;

type Operation = Awaited<ReturnType<typeof readOperation>>;
const readOperation = (id: string) => read(client.GET("/api/operations/{id}", { params: { path: { id } } }));
/** Whether the operation or a rerun it started still runs. */
const settling = (op: Operation) => op.status === "running" || op.counts.running > 0;

export function OperationProgress({ id, onClose }: { id: string; onClose: () => void }) {
  const queryClient = useQueryClient();
  const polls = useRef(0);
  const operation = useQuery({
    queryKey: ["operation", id],
    queryFn: () => {
      polls.current++;
      return readOperation(id);
    },
    // An operation completes once every run is started or skipped; its reruns may still run: read on until they end.
    refetchInterval: (q) => (q.state.data && settling(q.state.data) && polls.current < OPERATION_POLLS ? 1_000 : false),
  });
  const cancel = useMutation({
    mutationFn: () => read(client.POST("/api/operations/{id}/cancel", { params: { path: { id } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["operation", id] }),
  });
  const op = operation.data;
  const running = op?.status === "running";
  // Once it and its reruns end, the runs list and the failures show them.
  const ended = op !== undefined && !settling(op);
  useEffect(() => {
    if (ended) void queryClient.invalidateQueries({ queryKey: ["runs"] });
  }, [ended, queryClient]);
  return (
    <div className="operation-progress" role="region" aria-label="Bulk rerun" data-operation={id}>
      <ErrorMessage error={operation.error ? describeError(operation.error) : null} />
      {!op ? (
        <p className="loading">Reading the operation…</p>
      ) : (
        <>
          <OperationCounts op={op} />
          {settling(op) && polls.current >= OPERATION_POLLS && (
            <p className="hint">
              Still running.{" "}
              <button type="button" className="link" onClick={() => void operation.refetch()}>
                Refresh
              </button>
            </p>
          )}
        </>
      )}
      <ErrorMessage error={cancel.error ? describeError(cancel.error) : null} />
      <div className="toolbar">
        {running && (
          <button type="button" disabled={cancel.isPending} onClick={() => cancel.mutate()}>
            Cancel the rerun
          </button>
        )}
        {!running && (
          <button type="button" className="link" onClick={onClose}>
            Close
          </button>
        )}
      </div>
    </div>
  );
}

/** How far the operation is, what its reruns did, and why runs were skipped. */
function OperationCounts({ op }: { op: Operation }) {
  const reasons = Object.entries(op.skipped_reasons ?? {});
  return (
    <>
      <p>
        <strong>Bulk rerun</strong>{" "}
        <span className="operation-status" data-status={op.status}>
          {op.status}
        </span>
        : {op.counts.started + op.counts.skipped} of {op.total} handled
      </p>
      <progress max={op.total || 1} value={op.counts.started + op.counts.skipped} aria-label="Runs handled" />
      <ul className="operation-counts small">
        <li data-count="succeeded">{op.counts.succeeded} succeeded</li>
        <li data-count="failed">{op.counts.failed} failed</li>
        <li data-count="running">{op.counts.running} running</li>
        {op.counts.cancelled > 0 && <li data-count="cancelled">{op.counts.cancelled} cancelled</li>}
        <li data-count="skipped">{op.counts.skipped} skipped</li>
      </ul>
      {reasons.length > 0 && (
        <ul className="operation-skipped small">
          {reasons.map(([reason, count]) => (
            <li key={reason}>
              {count} skipped: <code>{reason}</code>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
