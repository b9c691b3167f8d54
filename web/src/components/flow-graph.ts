// Between the API's flow definition and React Flow's nodes and edges, both ways.
import type { Edge, Node } from "@xyflow/react";
import type { ProblemDetail } from "../api";
import type { CatalogEntry, FlowDefinition, FlowNode } from "../types";

export interface NodeData extends Record<string, unknown> {
  type: string;
  name: string;
  config: Record<string, unknown>;
  category: string;
  catalogName: string;
  /** Problems the API reported on this node (save refused). */
  problems: string[];
  /** Fields of the definition's node the editor does not show (kept on save). */
  extra: Record<string, unknown>;
}

export type EditorNode = Node<NodeData, "svc">;
export type EditorEdge = Edge<{ branch?: string }>;

const COLUMNS = 8;

/** Where a node without a saved position goes: a grid in definition order. */
export const gridPosition = (index: number) => ({
  x: 40 + (index % COLUMNS) * 240,
  y: 40 + Math.floor(index / COLUMNS) * 140,
});

export function toEditor(
  definition: FlowDefinition,
  catalog: Map<string, CatalogEntry>,
): { nodes: EditorNode[]; edges: EditorEdge[] } {
  const nodes = definition.nodes.map((node, index): EditorNode => {
    const { id, type, name, config, position, ...extra } = node;
    const entry = catalog.get(type);
    return {
      id,
      type: "svc",
      position: position ?? gridPosition(index),
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
  return { nodes, edges };
}

export function toEdge(from: string, to: string, branch: string | undefined, index?: number): EditorEdge {
  return {
    id: `e-${from}-${to}${index === undefined ? "" : `-${index}`}`,
    source: from,
    target: to,
    label: branch,
    data: branch ? { branch } : {},
  };
}

export function toDefinition(nodes: EditorNode[], edges: EditorEdge[]): FlowDefinition {
  return {
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

export interface LocatedProblems {
  /** Node id → problems about the node as a whole. */
  nodes: Map<string, string[]>;
  /** Node id → config key → problem. */
  fields: Map<string, Record<string, string>>;
  /** Problems that name no node (edges, the graph). */
  other: string[];
}

/** The API's `details` (paths like definition.nodes[2].config.url) placed on the nodes and fields they name. */
export function locateProblems(details: ProblemDetail[], nodeIds: string[]): LocatedProblems {
  const located: LocatedProblems = { nodes: new Map(), fields: new Map(), other: [] };
  for (const { path, message } of details) {
    const match = /^definition\.nodes\[(\d+)\](?:\.(config)\.([A-Za-z0-9_]+)|\.([A-Za-z0-9_]+))?/.exec(path);
    const id = match ? nodeIds[Number(match[1])] : undefined;
    if (!match || id === undefined) {
      located.other.push(`${path.replace(/^definition\.?/, "") || "flow"}: ${message}`);
      continue;
    }
    const key = match[3];
    if (key) located.fields.set(id, { ...located.fields.get(id), [key]: message });
    located.nodes.set(id, [...(located.nodes.get(id) ?? []), key ? `${key}: ${message}` : message]);
  }
  return located;
}
