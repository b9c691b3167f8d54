// A flow's failures grouped by the node that failed and its error (GET /api/runs/failures), each
// group with one button to rerun its runs from their failed node on the flow's latest version.
import { useMutation, useQuery } from "@tanstack/react-query";
import { client, describeError, read } from "../api";
import type { paths } from "../api-types";
import { formatTime } from "../format";
import { ErrorMessage } from "../ui/status-badge";

export type BulkRerunBody = paths["/api/runs/rerun"]["post"]["requestBody"]["content"]["application/json"];

/** Starts a bulk rerun; `onStarted` gets its operation's id. */
export function useBulkRerun(onStarted: (operationId: string) => void) {
  return useMutation({
    mutationFn: (body: BulkRerunBody) => read(client.POST("/api/runs/rerun", { body })),
    onSuccess: (operation) => onStarted(operation.operation_id),
  });
}

const runs = (n: number) => `${n} run${n === 1 ? "" : "s"}`;

export function FlowFailures(props: {
  flowId: string;
  /** The flow's current version, when read. */
  latest: number | undefined;
  /** Whether the user may rerun (not a viewer). */
  canAct: boolean;
  onStarted: (operationId: string) => void;
}) {
  const failures = useQuery({
    queryKey: ["runs", "failures", props.flowId],
    queryFn: () => read(client.GET("/api/runs/failures", { params: { query: { flow_id: props.flowId } } })),
  });
  const rerun = useBulkRerun(props.onStarted);
  const groups = failures.data?.groups ?? [];
  return (
    <section className="flow-failures" aria-labelledby="flow-failures-title">
      <h2 id="flow-failures-title">Failures</h2>
      <ErrorMessage error={failures.error ? describeError(failures.error) : null} />
      {failures.isPending ? (
        <p className="loading">Reading the failures…</p>
      ) : groups.length === 0 ? (
        <p className="empty">No failed runs of this flow wait for a rerun.</p>
      ) : (
        <>
          <table className="list cards failure-groups">
            <thead>
              <tr>
                <th>Node</th>
                <th>Error</th>
                <th>Runs</th>
                <th>Versions</th>
                <th>Last seen</th>
                {props.canAct && <th />}
              </tr>
            </thead>
            <tbody>
              {groups.map((group) => (
                <tr key={`${group.node_id ?? ""} ${group.error}`} data-failure-node={group.node_id ?? ""}>
                  <td data-label="Node">{group.node_id ? <code>{group.node_id}</code> : "outside a node"}</td>
                  <td data-label="Error" className="failure-error">
                    {group.error}
                  </td>
                  <td data-label="Runs" className="failure-count">
                    {group.count}
                  </td>
                  <td data-label="Versions">{group.versions.map((v) => `v${v}`).join(", ")}</td>
                  <td data-label="Last seen">{formatTime(group.last_at)}</td>
                  {props.canAct && (
                    <td>
                      <button
                        type="button"
                        disabled={rerun.isPending || props.latest === undefined}
                        onClick={() => rerun.mutate({ ids: group.run_ids, from_failed: true, version: "latest" })}
                      >
                        Rerun these {group.run_ids.length} on the latest version
                        {props.latest !== undefined && ` (v${props.latest})`}
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
          <p className="hint">
            {runs(failures.data?.runs ?? 0)} failed
            {failures.data?.truncated && " (only the newest 2,000 failures grouped)"}; a group reruns its newest 100
            runs, each from its failed node.
          </p>
        </>
      )}
      <ErrorMessage error={rerun.error ? describeError(rerun.error) : null} />
    </section>
  );
}
