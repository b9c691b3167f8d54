// The flow's nodes as a list in graph order: on a phone, where the canvas is read-only, the way to
// pick a node and open its settings.
import { useMemo } from "react";
import type { EditorEdge, EditorNode } from "../components/flow-graph";
import { graphOrder } from "./model/graph-order";

export function FlowNodeList(props: { nodes: EditorNode[]; edges: EditorEdge[]; onSelect: (id: string) => void }) {
  const { nodes, edges } = props;
  const ordered = useMemo(() => {
    const byId = new Map(nodes.map((node) => [node.id, node]));
    const order = graphOrder(
      nodes.map((node) => node.id),
      edges.map((edge) => ({ from: edge.source, to: edge.target })),
    );
    return order.map((id) => byId.get(id)!);
  }, [nodes, edges]);
  return (
    <ol className="node-list card" aria-label="Nodes">
      {ordered.map((node) => (
        <li key={node.id} data-node={node.id}>
          <button type="button" aria-pressed={Boolean(node.selected)} onClick={() => props.onSelect(node.id)}>
            <strong>{node.data.name || node.data.catalogName}</strong>
            <span className="muted small">{node.data.type}</span>
            {node.data.problems.length > 0 && (
              <span className="flow-node-problem">
                {node.data.problems.length} problem{node.data.problems.length === 1 ? "" : "s"}
              </span>
            )}
          </button>
        </li>
      ))}
    </ol>
  );
}
