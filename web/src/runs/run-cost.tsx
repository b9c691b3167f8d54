// A run's model calls and what they cost (GET /api/usage/runs/{id}): the total and each node's,
// shown on the run page once the run made a call; read again as the run goes and when it ends.
import { useQuery } from "@tanstack/react-query";
import { client, read } from "../api";
import { formatCost, formatTokens } from "../cost";

export function RunCost({
  runId,
  running,
  labelOf,
}: {
  runId: string;
  running: boolean;
  labelOf: (nodeId: string) => string;
}) {
  const usage = useQuery({
    queryKey: ["run", runId, "usage"],
    queryFn: () => read(client.GET("/api/usage/runs/{id}", { params: { path: { id: runId } } })),
    refetchInterval: running ? 3000 : false,
  });
  const u = usage.data;
  if (!u || u.total.calls === 0) return null;
  return (
    <div className="run-cost" data-run-cost={u.total.cost}>
      <h2>Cost</h2>
      <p>
        <strong>{formatCost(u.total.cost)}</strong>{" "}
        <span className="muted">
          · {u.total.calls} model {u.total.calls === 1 ? "call" : "calls"} · {formatTokens(u.total.input_tokens)} in /{" "}
          {formatTokens(u.total.output_tokens)} out
          {u.total.unpriced_calls > 0 && ` · ${u.total.unpriced_calls} of models without a price`}
        </span>
      </p>
      <table className="list cards">
        <thead>
          <tr>
            <th>Node</th>
            <th>Calls</th>
            <th>Tokens in / out</th>
            <th>Cost</th>
          </tr>
        </thead>
        <tbody>
          {u.nodes.map((node) => (
            <tr key={node.node_id} data-node-cost={node.node_id}>
              <td>{labelOf(node.node_id)}</td>
              <td data-label="Calls">{node.calls}</td>
              <td data-label="Tokens">
                {formatTokens(node.input_tokens)} / {formatTokens(node.output_tokens)}
              </td>
              <td data-label="Cost">{formatCost(node.cost)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
