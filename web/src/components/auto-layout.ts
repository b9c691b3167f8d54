// The layered layout of a flow (dagre): "Tidy up" on request, and by default for a flow whose nodes
// have no saved positions or overlap (one made through the API or imported), in the editor and on
// a run's page. Layers run left to right along the edges; a node's branches read top to bottom in
// their layer (true before false, approved before rejected...); edge labels get a place of their own.
import { Graph, layout } from "@dagrejs/dagre";

export interface LayoutNode {
  id: string;
  width?: number;
  height?: number;
}

export interface LayoutEdge {
  source: string;
  target: string;
  branch?: string | null;
}

export type Point = { x: number; y: number };

/** A node's box on the canvas before it is measured (styles.css gives .flow-node this width). */
export const NODE_SIZE = { width: 200, height: 64 };

/** Branch labels in the order their targets are stacked, top to bottom; other labels come after. */
const BRANCH_ORDER = ["true", "approved", "resumed", "false", "rejected", "timeout", "default", "error"];
const LABEL_HEIGHT = 18;
const LABEL_CHAR_WIDTH = 7;

const branchRank = (branch: string | null | undefined) => {
  const index = BRANCH_ORDER.indexOf(branch ?? "");
  return branch ? (index === -1 ? BRANCH_ORDER.indexOf("default") : index) : -1;
};

/** Each pair of a node's branch targets, in BRANCH_ORDER: the first goes above the second in their layer. */
function branchConstraints(edges: LayoutEdge[]): Array<{ left: string; right: string }> {
  const constraints: Array<{ left: string; right: string }> = [];
  const previous = new Map<string, string>();
  for (const edge of edges) {
    if (!edge.branch) continue;
    const above = previous.get(edge.source);
    if (above !== undefined && above !== edge.target) constraints.push({ left: above, right: edge.target });
    previous.set(edge.source, edge.target);
  }
  return constraints;
}

/** Each node's new top-left position. */
export function tidyPositions(nodes: LayoutNode[], edges: LayoutEdge[]): Map<string, Point> {
  const graph = new Graph();
  graph.setGraph({ rankdir: "LR", nodesep: 40, ranksep: 80, edgesep: 20, marginx: 40, marginy: 40 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) {
    graph.setNode(node.id, {
      width: node.width ?? NODE_SIZE.width,
      height: node.height ?? NODE_SIZE.height,
    });
  }
  const known = new Set(nodes.map((node) => node.id));
  const ordered = edges
    .filter((edge) => known.has(edge.source) && known.has(edge.target))
    .map((edge, index) => ({ edge, index }))
    .sort((a, b) => branchRank(a.edge.branch) - branchRank(b.edge.branch) || a.index - b.index);
  for (const { edge } of ordered) {
    // A labelled edge gets a box of its own between the layers, so that its label sits clear of nodes.
    const label = edge.branch
      ? { width: edge.branch.length * LABEL_CHAR_WIDTH + 12, height: LABEL_HEIGHT, labelpos: "c" }
      : {};
    graph.setEdge(edge.source, edge.target, label);
  }
  layout(graph, { constraints: branchConstraints(ordered.map(({ edge }) => edge)) });
  return new Map(
    nodes.map((node) => {
      const placed = graph.node(node.id);
      return [node.id, { x: Math.round(placed.x - placed.width / 2), y: Math.round(placed.y - placed.height / 2) }];
    }),
  );
}

const overlaps = (a: Point, b: Point) =>
  Math.abs(a.x - b.x) < NODE_SIZE.width && Math.abs(a.y - b.y) < NODE_SIZE.height;

/** Whether a flow's saved positions cannot be drawn as they are: a node has none, or two overlap. */
export function needsLayout(nodes: ReadonlyArray<{ position?: Point | null }>): boolean {
  const positions: Point[] = [];
  for (const node of nodes) {
    if (!node.position) return true;
    positions.push(node.position);
  }
  for (let i = 0; i < positions.length; i++)
    for (let j = i + 1; j < positions.length; j++) if (overlaps(positions[i]!, positions[j]!)) return true;
  return false;
}

/**
 * Where each node is drawn: its saved position, or the layered layout when the saved ones will not
 * do (with the height a node is drawn with, when it is known to be taller than NODE_SIZE's).
 */
export function placeNodes(
  nodes: ReadonlyArray<{ id: string; position?: Point | null; height?: number }>,
  edges: ReadonlyArray<{ from: string; to: string; branch?: string | null }>,
): Map<string, Point> {
  if (!needsLayout(nodes)) return new Map(nodes.map((node) => [node.id, node.position!]));
  return tidyPositions(
    nodes.map((node) => ({ id: node.id, ...(node.height ? { height: node.height } : {}) })),
    edges.map((edge) => ({ source: edge.from, target: edge.to, branch: edge.branch })),
  );
}
