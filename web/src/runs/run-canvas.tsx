// A run on its flow's canvas, read-only: each node with its state, duration and a peek at its
// output (or error). Loaded with the run page's canvas only: React Flow stays out of the first load.
import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  type Edge,
  type Node,
  type NodeProps,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useMemo } from "react";
import { formatDuration, peekValue } from "../format";
import type { RunSteps } from "../types";
import { placeNodes } from "../components/auto-layout";
import { categoryOfType, NodeIcon } from "../components/node-icons";
import { ReadableZoom } from "../components/readable-zoom";
import { ERROR_BRANCH } from "../components/node-settings";
import { durationOf, stateLabel, type NodeProgress } from "./run-progress";
import { errorText } from "./step-error";

type RunNodeData = { progress: NodeProgress };
type RunCanvasNode = Node<RunNodeData, "run">;

/** What the node's box says under its state: its error, or a peek at its output. */
function peekOf(node: NodeProgress): string {
  const last = node.attempts.at(-1);
  if (!last) return "";
  if (last.error !== null && last.error !== undefined) return peekValue(errorText(last.error), 80);
  return peekValue(last.output, 80);
}

function RunNodeBox({ data }: NodeProps<RunCanvasNode>) {
  const node = data.progress;
  const duration = durationOf(node);
  const peek = peekOf(node);
  return (
    <div className={`flow-node run-node state-${node.state}`} data-run-node={node.id}>
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <div className="flow-node-head">
        <NodeIcon type={node.type} category={categoryOfType(node.type)} />
        <div className="flow-node-name">{node.label}</div>
      </div>
      <div className="run-node-state">
        <span className={`badge status-${node.state}`}>{stateLabel(node)}</span>
        {duration !== null && <span className="muted small"> {formatDuration(duration)}</span>}
      </div>
      {peek && <div className="run-node-peek">{peek}</div>}
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
}

const nodeTypes = { run: RunNodeBox };

export default function RunCanvas(props: {
  graph: Pick<RunSteps, "nodes" | "edges">;
  progress: NodeProgress[];
  onSelect: (nodeId: string) => void;
}) {
  const { nodes, edges } = useMemo(() => {
    const byId = new Map(props.progress.map((node) => [node.id, node]));
    // The editor's layout when the version has no usable positions (a flow made through the API).
    const placed = placeNodes(props.graph.nodes ?? [], props.graph.edges ?? []);
    const nodes: RunCanvasNode[] = (props.graph.nodes ?? []).flatMap((node) => {
      const progress = byId.get(node.id);
      if (!progress) return [];
      return [{ id: node.id, type: "run", position: placed.get(node.id)!, data: { progress } }];
    });
    const edges: Edge[] = (props.graph.edges ?? []).map((edge, index) => ({
      id: `e-${edge.from}-${edge.to}-${index}`,
      source: edge.from,
      target: edge.to,
      label: edge.branch ?? undefined,
      markerEnd: { type: MarkerType.ArrowClosed },
      ...(edge.branch === ERROR_BRANCH ? { className: "error-edge" } : {}),
    }));
    return { nodes, edges };
  }, [props.graph, props.progress]);
  return (
    <div className="canvas run-canvas" data-testid="run-canvas">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        onNodeClick={(_event, node) => props.onSelect(node.id)}
        minZoom={0.1}
      >
        <ReadableZoom />
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
