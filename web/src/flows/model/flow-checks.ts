// The editor's own checks of the canvas (required settings missing, a loop), and which of the
// problems the API reported still stand: one goes as soon as what it is about changes, so that
// a fixed field or node no longer shows it (the next save checks it again).
import type { CatalogEntry } from "../../types";
import { findLoop } from "./connection-rules";
import {
  noProblems,
  type EditorEdge,
  type EditorNode,
  type LocatedProblems,
  type NodeProblem,
} from "../../components/flow-graph";

const addNodeProblem = (located: LocatedProblems, nodeId: string, problem: NodeProblem) => {
  const problems = located.nodes.get(nodeId) ?? [];
  if (!problems.some((p) => p.message === problem.message)) problems.push(problem);
  located.nodes.set(nodeId, problems);
};

/** What the editor can tell is wrong before asking the API: required settings left out, a loop. */
export function checkFlow(
  nodes: EditorNode[],
  edges: EditorEdge[],
  catalog: Map<string, CatalogEntry>,
  labelOf: (nodeId: string) => string,
): LocatedProblems {
  const located = noProblems();
  for (const node of nodes) {
    for (const [key, field] of Object.entries(catalog.get(node.data.type)?.config_schema ?? {})) {
      const value = node.data.config[key];
      if (!field.required || field.default !== undefined || (value !== undefined && value !== null)) continue;
      const message = `${field.label} is required`;
      located.fields.set(node.id, { ...located.fields.get(node.id), [key]: message });
      addNodeProblem(located, node.id, { key, message });
    }
  }
  const loop = findLoop(
    nodes.map((n) => n.id),
    edges,
  );
  if (loop) {
    const path = loop.map(labelOf).join(" → ");
    for (const id of new Set(loop)) addNodeProblem(located, id, { message: `is part of a loop: ${path}` });
    located.other.push(`The flow loops: ${path}. Remove one of these edges: a flow only runs forward.`);
  }
  return located;
}

/** What the problems of a save were about, as the canvas was then. */
export interface ProblemSubjects {
  fields: Map<string, Record<string, string>>;
  nodes: Map<string, string>;
  graph: string;
}

const json = (value: unknown) => JSON.stringify(value) ?? "";
const nodeKey = (node: EditorNode) => json([node.data.type, node.data.name, node.data.config]);
const graphKey = (nodes: EditorNode[], edges: EditorEdge[]) =>
  json([nodes.map((n) => n.id), edges.map((e) => [e.source, e.target, e.data?.branch ?? null])]);

export function subjectsOf(nodes: EditorNode[], edges: EditorEdge[]): ProblemSubjects {
  return {
    fields: new Map(
      nodes.map((n) => [n.id, Object.fromEntries(Object.entries(n.data.config).map(([k, v]) => [k, json(v)]))]),
    ),
    nodes: new Map(nodes.map((n) => [n.id, nodeKey(n)])),
    graph: graphKey(nodes, edges),
  };
}

/** The problems of `reported` whose subject (field, node, edges) is as it was when they were reported. */
export function stillStanding(
  reported: LocatedProblems,
  then: ProblemSubjects,
  nodes: EditorNode[],
  edges: EditorEdge[],
): LocatedProblems {
  const now = new Map(nodes.map((n) => [n.id, n]));
  const fieldUnchanged = (id: string, key: string) =>
    now.has(id) && json(now.get(id)!.data.config[key]) === (then.fields.get(id)?.[key] ?? json(undefined));
  const standing = noProblems();
  for (const [id, fields] of reported.fields) {
    const kept = Object.entries(fields).filter(([key]) => fieldUnchanged(id, key));
    if (kept.length > 0) standing.fields.set(id, Object.fromEntries(kept));
  }
  for (const [id, problems] of reported.nodes) {
    const node = now.get(id);
    if (!node) continue;
    const kept = problems.filter((p) => (p.key ? fieldUnchanged(id, p.key) : nodeKey(node) === then.nodes.get(id)));
    if (kept.length > 0) standing.nodes.set(id, kept);
  }
  if (graphKey(nodes, edges) === then.graph) {
    standing.edges = reported.edges;
    standing.other = reported.other;
  }
  return standing;
}

/** Both sets of problems together, each message once. */
export function mergeProblems(a: LocatedProblems, b: LocatedProblems): LocatedProblems {
  const merged = noProblems();
  for (const source of [a, b]) {
    for (const [id, fields] of source.fields) merged.fields.set(id, { ...fields, ...merged.fields.get(id) });
    for (const [id, problems] of source.nodes) for (const p of problems) addNodeProblem(merged, id, p);
    for (const [index, messages] of source.edges) {
      merged.edges.set(index, [...new Set([...(merged.edges.get(index) ?? []), ...messages])]);
    }
  }
  merged.other = [...new Set([...a.other, ...b.other])];
  return merged;
}
