// "Tidy up": places a flow's nodes in layers from left to right along its edges (dagre's layered
// layout), each node's size as measured on the canvas.
import { Graph, layout } from "@dagrejs/dagre";

export interface LayoutNode {
  id: string;
  width?: number;
  height?: number;
}

const DEFAULT_SIZE = { width: 180, height: 60 };

/** Each node's new top-left position. */
export function tidyPositions(
  nodes: LayoutNode[],
  edges: Array<{ source: string; target: string }>,
): Map<string, { x: number; y: number }> {
  const graph = new Graph();
  graph.setGraph({ rankdir: "LR", nodesep: 40, ranksep: 90, marginx: 40, marginy: 40 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) {
    graph.setNode(node.id, {
      width: node.width ?? DEFAULT_SIZE.width,
      height: node.height ?? DEFAULT_SIZE.height,
    });
  }
  const known = new Set(nodes.map((node) => node.id));
  for (const edge of edges)
    if (known.has(edge.source) && known.has(edge.target)) graph.setEdge(edge.source, edge.target);
  layout(graph);
  return new Map(
    nodes.map((node) => {
      const placed = graph.node(node.id);
      return [node.id, { x: Math.round(placed.x - placed.width / 2), y: Math.round(placed.y - placed.height / 2) }];
    }),
  );
}
