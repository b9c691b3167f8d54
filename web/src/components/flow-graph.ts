// Between the API's flow definition and React Flow's nodes and edges, both ways.
import { MarkerType, type Edge, type Node } from "@xyflow/react";
import type { ProblemDetail } from "../api";
import type { CatalogEntry, FlowDefinition, FlowNode } from "../types";
import { NODE_SIZE, placeNodes } from "./auto-layout";
import { outputsHeight } from "./node-outputs";
import { ERROR_BRANCH } from "./node-settings";
import { fieldProblem, plainMessage } from "./plain-problems";

export interface NodeData extends Record<string, unknown> {
  type: string;
  name: string;
  config: Record<string, unknown>;
  category: string;
  catalogName: string;
  /** Problems shown on this node (the API's, or the editor's own checks), in plain words. */
  problems: string[];
  /** Fields of the definition's node the editor does not show (kept on save). */
  extra: Record<string, unknown>;
}

export type EditorNode = Node<NodeData, "svc">;
export type EditorEdge = Edge<{ branch?: string }>;

/** A definition's own fields beside its nodes and edges (error_flow_id, a builder's data). */
export interface FlowSettings {
  error_flow_id?: string;
  [field: string]: unknown;
}

export function toEditor(
  definition: FlowDefinition,
  catalog: Map<string, CatalogEntry>,
): { nodes: EditorNode[]; edges: EditorEdge[]; settings: FlowSettings } {
  const { nodes: _nodes, edges: _edges, ...settings } = definition;
  // Nodes without saved positions (or overlapping) are laid out; the next save keeps where they went.
  // A branching node lists its outputs: it is drawn taller, and laid out so.
  const sized = definition.nodes.map((node) => ({
    ...node,
    height: NODE_SIZE.height + outputsHeight(node.type, node.config ?? {}),
  }));
  const placed = placeNodes(sized, definition.edges ?? []);
  const nodes = definition.nodes.map((node): EditorNode => {
    const { id, type, name, config, position: _position, ...extra } = node;
    const entry = catalog.get(type);
    return {
      id,
      type: "svc",
      position: placed.get(id)!,
      data: {
        type,
        name: name ?? "",
        config: config ?? {},
        category: entry?.category ?? "unknown",
        catalogName: entry?.name ?? type,
        problems: [],
        extra,
      },
    };
  });
  const edges = (definition.edges ?? []).map((edge, index) => toEdge(edge.from, edge.to, edge.branch, index));
  return { nodes, edges, settings };
}

export function toEdge(from: string, to: string, branch: string | undefined, index?: number): EditorEdge {
  return {
    id: `e-${from}-${to}${index === undefined ? "" : `-${index}`}`,
    source: from,
    target: to,
    label: branch,
    data: branch ? { branch } : {},
    markerEnd: { type: MarkerType.ArrowClosed },
    // An edge from a node's error handle leaves that handle, drawn apart from the others.
    ...(branch === ERROR_BRANCH ? { sourceHandle: ERROR_BRANCH, className: "error-edge" } : {}),
  };
}

export function toDefinition(nodes: EditorNode[], edges: EditorEdge[], settings: FlowSettings = {}): FlowDefinition {
  return {
    ...settings,
    nodes: nodes.map((node): FlowNode => ({
      ...node.data.extra,
      id: node.id,
      type: node.data.type,
      ...(node.data.name ? { name: node.data.name } : {}),
      config: node.data.config,
      position: { x: Math.round(node.position.x), y: Math.round(node.position.y) },
    })),
    edges: edges.map((edge) => ({
      from: edge.source,
      to: edge.target,
      ...(edge.data?.branch ? { branch: edge.data.branch } : {}),
    })),
  };
}

/** A node id for a new node of `type`, unique among `taken` (ids are letters, digits, _ and -). */
export function newNodeId(type: string, taken: Set<string>): string {
  let base = type.replace(/[^A-Za-z0-9_-]/g, "_");
  if (!/^[A-Za-z]/.test(base)) base = `n_${base}`;
  base = base.slice(0, 56);
  if (!taken.has(base)) return base;
  for (let n = 2; n < 10_000; n++) if (!taken.has(`${base}_${n}`)) return `${base}_${n}`;
  throw new Error("too many nodes of one type");
}

/** A problem of a node: about one of its config fields (`key`), or about the node as a whole. */
export interface NodeProblem {
  key?: string;
  message: string;
}

export interface LocatedProblems {
  /** Node id → its problems, in plain words ("URL is required"). */
  nodes: Map<string, NodeProblem[]>;
  /** Node id → config key → the problem of that field. */
  fields: Map<string, Record<string, string>>;
  /** Edge index (in the definition) → its problems. */
  edges: Map<number, string[]>;
  /** Problems to list above the canvas: those of edges (named by their nodes) and of the flow. */
  other: string[];
}

export const noProblems = (): LocatedProblems => ({ nodes: new Map(), fields: new Map(), edges: new Map(), other: [] });

/**
 * The API's `details` (paths like definition.nodes[2].config.url) placed on the nodes, fields and
 * edges they name, in plain words; each message once.
 */
export function locateProblems(
  details: ProblemDetail[],
  context: {
    nodeIds: string[];
    edges: Array<{ from: string; to: string }>;
    /** A config field's label (the catalog's), for "URL is required". */
    fieldLabel?: (nodeId: string, key: string) => string;
    nodeLabel?: (nodeId: string) => string;
  },
): LocatedProblems {
  const located = noProblems();
  const fieldLabel = context.fieldLabel ?? ((_id: string, key: string) => key);
  const nodeLabel = context.nodeLabel ?? ((id: string) => id);
  const other = new Set<string>();
  for (const { path, message } of details) {
    const node = /^definition\.nodes\[(\d+)\](?:\.config\.([A-Za-z0-9_]+))?/.exec(path);
    const nodeId = node ? context.nodeIds[Number(node[1])] : undefined;
    if (node && nodeId !== undefined) {
      const key = node[2];
      const text = key ? fieldProblem(fieldLabel(nodeId, key), message) : plainMessage(message);
      const problems = located.nodes.get(nodeId) ?? [];
      if (!problems.some((p) => p.message === text)) problems.push(key ? { key, message: text } : { message: text });
      located.nodes.set(nodeId, problems);
      if (key && !located.fields.get(nodeId)?.[key]) {
        located.fields.set(nodeId, { ...located.fields.get(nodeId), [key]: text });
      }
      continue;
    }
    const edge = /^definition\.edges\[(\d+)\]/.exec(path);
    const ends = edge ? context.edges[Number(edge[1])] : undefined;
    if (edge && ends) {
      const index = Number(edge[1]);
      const text = plainMessage(message);
      located.edges.set(index, [...new Set([...(located.edges.get(index) ?? []), text])]);
      other.add(fieldProblem(`The edge ${nodeLabel(ends.from)} → ${nodeLabel(ends.to)}`, message));
      continue;
    }
    const where = path.replace(/^definition\.?/, "");
    other.add(where ? `${where}: ${plainMessage(message)}` : plainMessage(message));
  }
  located.other = [...other];
  return located;
}
