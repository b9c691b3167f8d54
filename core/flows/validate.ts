// Validation of a flow definition: every problem at once, each with the path it concerns.
import type { z } from "zod";
import { literalFields } from "../nodes/define-node.js";
import type { NodeRegistry } from "../nodes/registry.js";
import {
  FLOW_LIMITS,
  flowDefinitionSchema,
  flowEdgeSchema,
  flowNodeSchema,
  type FlowDefinition,
  type FlowEdge,
  type FlowNode,
} from "../contracts/flow-definition.js";
import { concurrencyKeyProblems } from "./concurrency-key.js";
import { PRIORITY_FIELD, priorityTemplateProblems } from "./priority-template.js";
import { ancestorsOf, buildGraph, findCycle, type FlowGraph } from "./graph.js";
import { ERROR_BRANCH } from "./node-input.js";
import { nodeSettings } from "../nodes/node-settings.js";
import { findTemplates, hasTemplate, ITEM_ROOTS, type PathSegment } from "./template.js";

export interface FlowProblem {
  /** Where, e.g. `nodes[2].config.url` or `edges[0].to`. */
  path: string;
  message: string;
}

export type FlowValidation =
  { ok: true; definition: FlowDefinition; problems: [] } | { ok: false; problems: FlowProblem[] };

function formatPath(segments: readonly PathSegment[] | readonly PropertyKey[]): string {
  return segments
    .map((segment, index) =>
      typeof segment === "number" ? `[${segment}]` : index === 0 ? String(segment) : `.${String(segment)}`,
    )
    .join("");
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/**
 * Zod issues, minus those about values that are templates (they are checked once rendered, at run
 * time). Literal fields (code, credentials) are never rendered: they are checked as they are.
 */
function configIssues(
  config: Record<string, unknown>,
  error: z.ZodError,
  literal: ReadonlySet<string>,
): z.core.$ZodIssue[] {
  return error.issues.filter((issue) => {
    if (literal.has(String(issue.path[0]))) return true;
    for (let depth = 1; depth <= issue.path.length; depth++) {
      const value = valueAt(config, issue.path.slice(0, depth));
      if (typeof value === "string" && hasTemplate(value)) return false;
    }
    return true;
  });
}

/** Adds a problem at a path. */
type AddProblem = (path: string, message: string) => void;

interface Indexed<T> {
  index: number;
  item: T;
}

export function validateFlowDefinition(raw: unknown, registry: NodeRegistry): FlowValidation {
  const bytes = new TextEncoder().encode(JSON.stringify(raw) ?? "").length;
  if (bytes > FLOW_LIMITS.maxDefinitionBytes) {
    return {
      ok: false,
      problems: [{ path: "", message: `the definition is ${bytes} bytes; at most ${FLOW_LIMITS.maxDefinitionBytes}` }],
    };
  }
  const problems: FlowProblem[] = [];
  const add: AddProblem = (path, message) => problems.push({ path, message });
  const parts = wellFormedParts(raw, add);
  if (parts) {
    const firstIndex = uniqueNodeIds(parts.nodes, add);
    const graph = buildGraph(
      parts.nodes.filter(({ index, item }) => firstIndex.get(item.id) === index).map(({ item }) => item),
      joiningEdges(parts.edges, firstIndex, add),
    );
    const cycle = findCycle(graph);
    if (cycle) add("edges", `the graph has a cycle: ${cycle.join(" → ")}`);
    const checks: NodeChecks = { registry, graph, cycle, configs: new Map(), add };
    for (const node of parts.nodes) checkNode(checks, node);
    for (const edge of parts.edges) checkEdgeBranch(checks, parts.nodes, edge);
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, definition: flowDefinitionSchema.parse(raw), problems: [] };
}

/**
 * The well-formed nodes and edges, each malformed one reported by itself (so the rest is still
 * checked), and the limits on their numbers; undefined when there are no nodes to go on with.
 */
function wellFormedParts(
  raw: unknown,
  add: AddProblem,
): { nodes: Array<Indexed<FlowNode>>; edges: Array<Indexed<FlowEdge>> } | undefined {
  const shape = flowDefinitionSchema.safeParse(raw);
  if (!shape.success) {
    const top = raw as { nodes?: unknown; edges?: unknown } | null;
    if (!top || typeof top !== "object" || !Array.isArray(top.nodes)) {
      for (const issue of shape.error.issues) add(formatPath(issue.path), issue.message);
      return undefined;
    }
    // The flow's own settings (error_flow_id, priority, concurrency); nodes and edges are checked one by one below.
    for (const issue of shape.error.issues) {
      if (issue.path[0] !== "nodes" && issue.path[0] !== "edges") add(formatPath(issue.path), issue.message);
    }
  }
  const settings = raw as {
    priority?: unknown;
    concurrency?: { key?: unknown };
    throttle?: { key?: unknown };
    debounce?: { key?: unknown };
  };
  if (typeof settings.priority === "string" && settings.priority.length <= FLOW_LIMITS.maxPriorityTemplate) {
    for (const problem of priorityTemplateProblems(settings.priority)) add(PRIORITY_FIELD, problem);
  }
  const key = settings.concurrency?.key;
  if (typeof key === "string") for (const problem of concurrencyKeyProblems(key)) add("concurrency.key", problem);
  const throttleKey = settings.throttle?.key;
  if (typeof throttleKey === "string") {
    for (const problem of concurrencyKeyProblems(throttleKey)) add("throttle.key", problem);
  }
  const debounceKey = settings.debounce?.key;
  if (typeof debounceKey === "string") {
    for (const problem of concurrencyKeyProblems(debounceKey)) add("debounce.key", problem);
  }
  // One gate per flow and key holds both rules: they must count runs by the same key.
  if (settings.concurrency && settings.throttle && key !== throttleKey) {
    add("throttle.key", "must be the same as concurrency.key (both rules share one gate per key)");
  }
  const source = raw as { nodes: unknown[]; edges?: unknown };
  if (source.nodes.length > FLOW_LIMITS.maxNodes) add("nodes", `at most ${FLOW_LIMITS.maxNodes} nodes`);
  if (source.nodes.length === 0) add("nodes", "a flow needs at least one node");
  const rawEdges = Array.isArray(source.edges) ? source.edges : source.edges === undefined ? [] : null;
  if (rawEdges === null) add("edges", "must be an array");
  else if (rawEdges.length > FLOW_LIMITS.maxEdges) add("edges", `at most ${FLOW_LIMITS.maxEdges} edges`);
  return {
    nodes: wellFormed(source.nodes, "nodes", flowNodeSchema, add),
    edges: wellFormed(rawEdges ?? [], "edges", flowEdgeSchema, add),
  };
}

function wellFormed<T>(candidates: unknown[], at: string, schema: z.ZodType<T>, add: AddProblem): Array<Indexed<T>> {
  const parsed: Array<Indexed<T>> = [];
  candidates.forEach((candidate, index) => {
    const result = schema.safeParse(candidate);
    if (result.success) parsed.push({ index, item: result.data });
    else for (const issue of result.error.issues) add(formatPath([at, index, ...issue.path]), issue.message);
  });
  return parsed;
}

/** Node ids are unique: the index of each id's first node. */
function uniqueNodeIds(nodes: Array<Indexed<FlowNode>>, add: AddProblem): Map<string, number> {
  const firstIndex = new Map<string, number>();
  for (const { index, item: node } of nodes) {
    const earlier = firstIndex.get(node.id);
    if (earlier !== undefined) add(`nodes[${index}].id`, `duplicate node id "${node.id}" (also nodes[${earlier}])`);
    else firstIndex.set(node.id, index);
  }
  return firstIndex;
}

/** Edges join existing nodes, once: those that do. */
function joiningEdges(edges: Array<Indexed<FlowEdge>>, firstIndex: Map<string, number>, add: AddProblem): FlowEdge[] {
  const seenEdges = new Set<string>();
  const goodEdges: FlowEdge[] = [];
  for (const { index, item: edge } of edges) {
    let good = true;
    for (const end of ["from", "to"] as const) {
      if (!firstIndex.has(edge[end])) {
        add(`edges[${index}].${end}`, `no node has the id "${edge[end]}"`);
        good = false;
      }
    }
    const key = `${edge.from}\u0000${edge.to}\u0000${edge.branch ?? ""}`;
    if (seenEdges.has(key)) {
      add(`edges[${index}]`, `duplicate edge ${edge.from} → ${edge.to}`);
      good = false;
    }
    seenEdges.add(key);
    if (good) goodEdges.push(edge);
  }
  return goodEdges;
}

/** What the checks of each node share: the graph, the configs parsed so far, the trigger seen first. */
interface NodeChecks {
  registry: NodeRegistry;
  graph: FlowGraph;
  cycle: string[] | undefined;
  configs: Map<string, Record<string, unknown>>;
  triggerSeen?: string;
  add: AddProblem;
}

/** A known type, a valid config, templates that parse and reference upstream nodes, settings that hold together. */
function checkNode(checks: NodeChecks, { index, item: node }: Indexed<FlowNode>): void {
  const at = (...rest: PropertyKey[]) => formatPath(["nodes", index, ...rest]);
  const definition = checks.registry.get(node.type);
  if (!definition) {
    checks.add(at("type"), `unknown node type "${node.type}"`);
    return;
  }
  const literal = literalFields(definition);
  checkConfig(checks, node, definition, literal, at);
  checkTemplates(checks, node, literal, at);
  checkItems(checks, node, definition, at);
  checkSettings(checks, node, definition, at);
  if (definition.kind === "trigger") {
    if (checks.triggerSeen)
      checks.add(at("type"), `a flow has at most one trigger node ("${checks.triggerSeen}" is one)`);
    checks.triggerSeen ??= node.id;
    if ((checks.graph.parents.get(node.id) ?? []).length > 0) {
      checks.add(at("id"), `the trigger "${node.id}" is the entry of the flow: no edge may lead into it`);
    }
  }
}

type NodeDefinition = NonNullable<ReturnType<NodeRegistry["get"]>>;
type PathAt = (...rest: PropertyKey[]) => string;

function checkConfig(
  checks: NodeChecks,
  node: FlowNode,
  definition: NodeDefinition,
  literal: ReadonlySet<string>,
  at: PathAt,
) {
  for (const key of Object.keys(node.config)) {
    if (!(key in definition.config.shape)) checks.add(at("config", key), `unknown config key for ${node.type}`);
  }
  const parsed = definition.config.safeParse(node.config);
  if (parsed.success) checks.configs.set(node.id, parsed.data as Record<string, unknown>);
  else {
    for (const issue of configIssues(node.config, parsed.error, literal))
      checks.add(at("config", ...issue.path), issue.message);
  }
}

function checkTemplates(checks: NodeChecks, node: FlowNode, literal: ReadonlySet<string>, at: PathAt) {
  const templated = Object.fromEntries(Object.entries(node.config).filter(([key]) => !literal.has(key)));
  checkReferences(checks, node, templated, (...rest) => at("config", ...rest), node.items !== undefined);
}

/** Templates of a value at `at` parse, name upstream nodes, and name the item only where there is one. */
function checkReferences(checks: NodeChecks, node: FlowNode, value: unknown, at: PathAt, perItem: boolean) {
  const upstream = checks.cycle ? undefined : ancestorsOf(checks.graph, node.id);
  for (const finding of findTemplates(value)) {
    if (finding.error) checks.add(at(...finding.at), finding.error);
    for (const path of finding.paths) {
      if (ITEM_ROOTS.has(String(path[0])) && !perItem) {
        checks.add(
          at(...finding.at),
          `{{ ${String(path[0])} }} is there only in a node that runs per item (its items setting)`,
        );
      }
      if (path[0] !== "nodes") continue;
      const target = path[1];
      if (typeof target !== "string") checks.add(at(...finding.at), "{{ nodes.<id> }} needs a node id");
      else if (upstream && !upstream.has(target)) {
        checks.add(at(...finding.at), `{{ nodes.${target} }}: "${target}" is not upstream of "${node.id}"`);
      }
    }
  }
}

/** Only nodes that run in one activity run per item; `items.from` reads the node's scope, not an item. */
function checkItems(checks: NodeChecks, node: FlowNode, definition: NodeDefinition, at: PathAt) {
  if (!node.items) return;
  if (definition.kind !== "activity") {
    checks.add(at("items"), `a ${node.type} node cannot run per item (only nodes that run in one activity can)`);
    return;
  }
  const { from } = node.items;
  if (typeof from === "string" && !hasTemplate(from)) {
    checks.add(at("items", "from"), "must be a template giving an array, such as {{ input.rows }}, or an array");
  }
  checkReferences(checks, node, from, (...rest) => at("items", "from", ...rest), false);
}

/** The retry policy it runs with (its own values over its type's defaults) and its error handle. */
function checkSettings(checks: NodeChecks, node: FlowNode, definition: NodeDefinition, at: PathAt) {
  const { retry } = nodeSettings(node, definition);
  if (retry.max_interval_ms < retry.initial_interval_ms) {
    const own = node.retry?.max_interval_ms !== undefined ? "max_interval_ms" : "initial_interval_ms";
    checks.add(
      at("retry", own),
      `the longest wait between retries (max_interval_ms, ${retry.max_interval_ms}) is shorter than the first (initial_interval_ms, ${retry.initial_interval_ms})`,
    );
  }
  if (node.on_error === "branch") {
    const config = checks.configs.get(node.id);
    const labels = definition.branches && config ? definition.branches(config) : [];
    if (labels.includes(ERROR_BRANCH)) {
      checks.add(
        at("on_error"),
        `"${node.id}" has a branch named "${ERROR_BRANCH}", the name of its error handle: rename it`,
      );
    }
  }
}

/** Labelled edges leave branching nodes, with labels those nodes produce, or error handles. */
function checkEdgeBranch(
  checks: NodeChecks,
  nodes: Array<Indexed<FlowNode>>,
  { index, item: edge }: Indexed<FlowEdge>,
) {
  const { add } = checks;
  const from = nodes.find(({ item }) => item.id === edge.from)?.item;
  const definition = from && checks.registry.get(from.type);
  if (!from || !definition) return;
  // The error handle: its edges run only when the node fails (on_error: "branch").
  if (edge.branch === ERROR_BRANCH && from.on_error === "branch") return;
  const config = checks.configs.get(from.id);
  const labels = definition.branches && config ? definition.branches(config) : undefined;
  if (edge.branch === ERROR_BRANCH && !labels?.includes(ERROR_BRANCH)) {
    add(`edges[${index}].branch`, `"${from.id}" has no error handle: set its on_error to "branch"`);
    return;
  }
  if (!definition.branches) {
    if (edge.branch !== undefined) add(`edges[${index}].branch`, `"${from.id}" (${from.type}) has no branches`);
    return;
  }
  if (edge.branch === undefined) {
    add(
      `edges[${index}].branch`,
      `edges from "${from.id}" (${from.type}) need a branch label${labels ? `: ${labels.join(", ")}` : ""}`,
    );
  } else if (labels && !labels.includes(edge.branch)) {
    add(`edges[${index}].branch`, `"${from.id}" has no branch "${edge.branch}" (it has ${labels.join(", ")})`);
  }
}
