// What changes the canvas's graph: adding, connecting, selecting, changing and removing nodes,
// an edge's branch label, and the tidy-up layout. Each change marks the draft unsaved.
import { addEdge, useReactFlow, type Connection, type FinalConnectionState } from "@xyflow/react";
import { NODE_SIZE, tidyPositions } from "../components/auto-layout";
import { defaultConfig } from "../components/config-fields";
import { newNodeId, toEdge, type EditorEdge, type EditorNode } from "../components/flow-graph";
import { ERROR_BRANCH } from "../components/node-settings";
import type { CatalogEntry } from "../types";
import { connectionProblem } from "./model/connection-rules";
import { BRANCHING_TYPES, outputLabels } from "../components/node-outputs";
import { FIRST_PLACE, placeAfter, rightmost, type Box } from "./model/placement";
import type { DraftGraph } from "./use-draft-graph";

/** A new edge's label: the first of the node's labels its edges do not use yet (the wait node's declaration). */
const WAIT_LABELS = { approval: ["approved", "rejected", "timeout"], resume: ["resumed", "timeout"] };

/**
 * The branch label a new edge from `source` (through `sourceHandle`) takes, if its node branches:
 * the output's own label when it leaves one ("+" on a condition's false), else the next unused one.
 */
export function newEdgeBranch(
  source: EditorNode | undefined,
  sourceHandle: string | null | undefined,
  edges: EditorEdge[],
): string | undefined {
  if (sourceHandle === ERROR_BRANCH) return ERROR_BRANCH;
  if (!source || !BRANCHING_TYPES.has(source.data.type)) return undefined;
  if (sourceHandle && outputLabels(source.data).includes(sourceHandle)) return sourceHandle;
  const used = new Set(edges.filter((e) => e.source === source.id).map((e) => e.data?.branch));
  if (source.data.type === "condition") return used.has("true") ? "false" : "true";
  if (source.data.type !== "wait") return "default";
  const waitLabels = WAIT_LABELS[source.data.config.mode === "resume" ? "resume" : "approval"];
  return waitLabels.find((label) => !used.has(label)) ?? waitLabels[0];
}

/** A catalog entry as a new, selected node with its default config. */
function newNode(entry: CatalogEntry, id: string, position: { x: number; y: number }): EditorNode {
  return {
    id,
    type: "svc",
    position,
    selected: true,
    data: {
      type: entry.type,
      name: "",
      config: defaultConfig(entry.config_schema),
      category: entry.category,
      catalogName: entry.name,
      problems: [],
      extra: {},
    },
  };
}

/** Edges drawn on the canvas: refused as they are drawn when they would make a loop or repeat one. */
function useConnections(graph: DraftGraph) {
  const { nodes, edges, setEdges, setRefusedEdge, touch, labelOf } = graph;
  const isValidConnection = (connection: Connection | EditorEdge) =>
    connectionProblem(edges, connection.source, connection.target) === null;
  // The handle does not take a refused edge, and the reason shows when it is let go.
  const onConnectEnd = (_event: unknown, state: FinalConnectionState) => {
    if (state.isValid !== false || !state.fromNode || !state.toNode) return;
    // Drawn from a node's input handle, the edge runs the other way.
    const [source, target] =
      state.fromHandle?.type === "target" ? [state.toNode.id, state.fromNode.id] : [state.fromNode.id, state.toNode.id];
    setRefusedEdge(connectionProblem(edges, source, target, labelOf));
  };
  const onConnect = (connection: Connection) => {
    if (connectionProblem(edges, connection.source, connection.target) !== null) return;
    const source = nodes.find((n) => n.id === connection.source);
    const branch = newEdgeBranch(source, connection.sourceHandle, edges);
    setEdges((current) =>
      addEdge(
        { ...toEdge(connection.source, connection.target, branch), id: `e-${connection.source}-${connection.target}` },
        current,
      ),
    );
    touch();
  };
  /** An edge from a node's main output, drawn without a pointer ("Connect to" in the side panel). */
  const connect = (source: string, target: string) =>
    onConnect({ source, target, sourceHandle: null, targetHandle: null });
  return { isValidConnection, onConnectEnd, onConnect, connect };
}

/**
 * The row an output's next node prefers, counted from the node's own: the outputs in the order
 * the node shows their "+" (its main one first unless it branches, its error output last).
 */
function outputRow(from: EditorNode, handle: string | null): number {
  if (handle === null) return 0;
  const rows = [...(BRANCHING_TYPES.has(from.data.type) ? [] : [null]), ...outputLabels(from.data)];
  return Math.max(0, rows.indexOf(handle));
}

/** A node's box on the canvas (its measured size, or the layout's before it is measured). */
const boxOf = (node: EditorNode): Box => ({
  ...node.position,
  width: node.measured?.width ?? NODE_SIZE.width,
  height: node.measured?.height ?? NODE_SIZE.height,
});

/** Whether the node with `id` is drawn whole inside the canvas. */
function inView(id: string) {
  const node = document.querySelector(`.react-flow__node[data-id="${CSS.escape(id)}"]`);
  const pane = node?.closest(".react-flow");
  if (!node || !pane) return true;
  const [a, b] = [node.getBoundingClientRect(), pane.getBoundingClientRect()];
  return a.left >= b.left && a.right <= b.right && a.top >= b.top && a.bottom <= b.bottom;
}

/**
 * Adds a node of `type` right of `from` (or of the rightmost node), on no other node, selected, and
 * connected from `from`'s output `handle` (null: the main one) unless it is a trigger; its id.
 */
function withNodeAfter(
  graph: Pick<DraftGraph, "nodes" | "edges" | "setNodes" | "setEdges">,
  entry: CatalogEntry,
  from: EditorNode | undefined,
  handle: string | null,
): string {
  const { nodes, edges } = graph;
  const id = newNodeId(entry.type, new Set(nodes.map((n) => n.id)));
  const boxes = nodes.map(boxOf);
  const after = from ? boxOf(from) : rightmost(boxes);
  const position = after ? placeAfter(after, NODE_SIZE, boxes, from ? outputRow(from, handle) : 0) : FIRST_PLACE;
  graph.setNodes((current) => [...current.map((n) => ({ ...n, selected: false })), newNode(entry, id, position)]);
  if (!from || entry.category === "trigger") return id;
  const edge = { ...toEdge(from.id, id, newEdgeBranch(from, handle, edges)), id: `e-${from.id}-${id}` };
  graph.setEdges((current) =>
    addEdge(
      edge,
      current.map((e) => (e.selected ? { ...e, selected: false } : e)),
    ),
  );
  return id;
}

export function useGraphEdits(graph: DraftGraph, byType: Map<string, CatalogEntry>) {
  const { nodes, edges, setNodes, setEdges, touch } = graph;
  const { fitView, getViewport } = useReactFlow();
  /** A node added off the view is brought into it with the one it follows, at the same zoom, once drawn. */
  const reveal = (ids: string[]) =>
    window.requestAnimationFrame(() => {
      if (ids.every(inView)) return;
      const { zoom } = getViewport();
      void fitView({ nodes: ids.map((id) => ({ id })), minZoom: zoom, maxZoom: zoom, duration: 200 });
    });
  /** A node dropped at `position`; without one (a double-click in the palette), after the selected node and connected from it. */
  const addNode = (type: string, position?: { x: number; y: number }) => {
    const entry = byType.get(type);
    if (!entry) return;
    if (position) {
      setNodes((current) => {
        const id = newNodeId(type, new Set(current.map((n) => n.id)));
        return [...current.map((n) => ({ ...n, selected: false })), newNode(entry, id, position)];
      });
    } else {
      withNodeAfter(
        graph,
        entry,
        nodes.find((n) => n.selected),
        null,
      );
    }
    touch();
  };
  /** "+" on a node's output: the next node, placed after it and connected from that output. */
  const addNext = (fromId: string, handle: string | null, type: string) => {
    const entry = byType.get(type);
    const from = nodes.find((n) => n.id === fromId);
    if (!entry || !from) return undefined;
    const id = withNodeAfter(graph, entry, from, handle);
    touch();
    reveal([from.id, id]);
    return id;
  };
  const selectNode = (id: string) => {
    setNodes((current) => current.map((n) => ({ ...n, selected: n.id === id })));
    setEdges((current) => current.map((e) => (e.selected ? { ...e, selected: false } : e)));
  };
  const updateNode = (id: string, patch: Partial<EditorNode["data"]>) => {
    setNodes((current) => current.map((n) => (n.id === id ? { ...n, data: { ...n.data, ...patch } } : n)));
    touch();
  };
  const removeNode = (id: string) => {
    setNodes((current) => current.filter((n) => n.id !== id));
    setEdges((current) => current.filter((e) => e.source !== id && e.target !== id));
    touch();
  };
  const setEdgeBranch = (id: string, branch: string | undefined) => {
    setEdges((current) =>
      current.map((edge) =>
        edge.id === id ? { ...toEdge(edge.source, edge.target, branch), id: edge.id, selected: edge.selected } : edge,
      ),
    );
    touch();
  };
  /** Lays the nodes out in layers along the edges (an undo puts them back). */
  const tidyUp = () => {
    const positions = tidyPositions(
      nodes.map((node) => ({ id: node.id, width: node.measured?.width, height: node.measured?.height })),
      edges.map((edge) => ({ source: edge.source, target: edge.target, branch: edge.data?.branch })),
    );
    setNodes((current) => current.map((node) => ({ ...node, position: positions.get(node.id) ?? node.position })));
    touch();
    window.requestAnimationFrame(() => void fitView({ maxZoom: 1 }));
  };
  const connections = useConnections(graph);
  return { addNode, addNext, selectNode, updateNode, removeNode, setEdgeBranch, tidyUp, ...connections };
}
