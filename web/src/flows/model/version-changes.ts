// What changed between two versions of a flow, in the words a reader looks for: nodes added and
// removed, per changed node its changed fields (path: old → new), edges added and removed, and the
// flow's own settings. Pure: the diff view renders it above the line diff.
import type { FlowDefinition, FlowEdge, FlowNode } from "../../types";

/** One changed value; `before` or `after` is undefined where the field is absent on that side. */
export interface FieldChange {
  /** Dotted path into the node or the settings, e.g. `config.url`. */
  path: string;
  before: unknown;
  after: unknown;
}

export interface NodeRef {
  id: string;
  type: string;
  /** The node's name, or its id when it has none. */
  label: string;
}

export interface NodeChange extends NodeRef {
  fields: FieldChange[];
  /** Its saved place on the canvas changed (positions are not listed as fields). */
  moved: boolean;
}

export interface EdgeRef {
  from: string;
  to: string;
  branch?: string;
}

export interface VersionChanges {
  nodesAdded: NodeRef[];
  nodesRemoved: NodeRef[];
  nodesChanged: NodeChange[];
  edgesAdded: EdgeRef[];
  edgesRemoved: EdgeRef[];
  settings: FieldChange[];
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** JSON with object keys sorted: stored versions come back from jsonb with their keys reordered. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

const same = (a: unknown, b: unknown) => stableJson(a) === stableJson(b);

/**
 * The changed leaves of two values, objects walked key by key (arrays and scalars compared whole).
 * Keys are visited in sorted order, so that the list reads the same whichever way jsonb ordered them.
 */
export function fieldChanges(before: unknown, after: unknown, path = ""): FieldChange[] {
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => fieldChanges(before[key], after[key], path ? `${path}.${key}` : key));
  }
  return same(before, after) ? [] : [{ path, before, after }];
}

const nodeRef = (node: FlowNode): NodeRef => ({ id: node.id, type: node.type, label: node.name || node.id });

/** Compares one node kept in both versions; null when nothing about it changed. */
function nodeChange(before: FlowNode, after: FlowNode): NodeChange | null {
  const { position: positionBefore, ...restBefore } = before;
  const { position: positionAfter, ...restAfter } = after;
  const fields = fieldChanges(restBefore, restAfter);
  // A node without a saved place was laid out by the editor: placing it is no move.
  const moved = positionBefore !== undefined && positionAfter !== undefined && !same(positionBefore, positionAfter);
  if (fields.length === 0 && !moved) return null;
  return { ...nodeRef(after), fields, moved };
}

const edgeKey = (edge: EdgeRef) => stableJson([edge.from, edge.to, edge.branch ?? null]);
const edgeRef = (edge: FlowEdge): EdgeRef => ({
  from: edge.from,
  to: edge.to,
  ...(edge.branch === undefined ? {} : { branch: edge.branch }),
});

/** Edges of `of` whose (from, to, branch) is not among `others`'. */
function edgesMissing(of: FlowEdge[], others: FlowEdge[]): EdgeRef[] {
  const keys = new Set(others.map(edgeKey));
  return of.filter((edge) => !keys.has(edgeKey(edge))).map(edgeRef);
}

/** What changed from `before` (an older version) to `after` (the newer one, or the canvas). */
export function versionChanges(before: FlowDefinition, after: FlowDefinition): VersionChanges {
  const { nodes: nodesBefore, edges: edgesBefore, ...settingsBefore } = before;
  const { nodes: nodesAfter, edges: edgesAfter, ...settingsAfter } = after;
  const byIdBefore = new Map(nodesBefore.map((node) => [node.id, node]));
  const byIdAfter = new Map(nodesAfter.map((node) => [node.id, node]));
  return {
    nodesAdded: nodesAfter.filter((node) => !byIdBefore.has(node.id)).map(nodeRef),
    nodesRemoved: nodesBefore.filter((node) => !byIdAfter.has(node.id)).map(nodeRef),
    nodesChanged: nodesAfter.flatMap((node) => {
      const old = byIdBefore.get(node.id);
      const change = old ? nodeChange(old, node) : null;
      return change ? [change] : [];
    }),
    edgesAdded: edgesMissing(edgesAfter ?? [], edgesBefore ?? []),
    edgesRemoved: edgesMissing(edgesBefore ?? [], edgesAfter ?? []),
    settings: fieldChanges(settingsBefore, settingsAfter),
  };
}

/** Whether nothing (not even a node's place) changed. */
export function noChanges(changes: VersionChanges): boolean {
  return Object.values(changes).every((list: unknown[]) => list.length === 0);
}

/** A value as the readable diff prints it: JSON, cut at `max` characters; "(none)" when absent. */
export function formatFieldValue(value: unknown, max = 80): string {
  if (value === undefined) return "(none)";
  const text = typeof value === "string" ? JSON.stringify(value) : stableJson(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
