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
} from "./definition.js";
import { ancestorsOf, buildGraph, findCycle } from "./graph.js";
import { ERROR_BRANCH } from "./node-input.js";
import { nodeSettings } from "./node-settings.js";
import { findTemplates, hasTemplate, type PathSegment } from "./template.js";

export interface FlowProblem {
  /** Where, e.g. `nodes[2].config.url` or `edges[0].to`. */
  path: string;
  message: string;
}

export type FlowValidation =
  { ok: true; definition: FlowDefinition; problems: [] } | { ok: false; problems: FlowProblem[] };

export function formatPath(segments: readonly PathSegment[] | readonly PropertyKey[]): string {
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
function configIssues(config: Record<string, unknown>, error: z.ZodError, literal: Set<string>): z.core.$ZodIssue[] {
  return error.issues.filter((issue) => {
    if (literal.has(String(issue.path[0]))) return true;
    for (let depth = 1; depth <= issue.path.length; depth++) {
      const value = valueAt(config, issue.path.slice(0, depth));
      if (typeof value === "string" && hasTemplate(value)) return false;
    }
    return true;
  });
}

export function validateFlowDefinition(raw: unknown, registry: NodeRegistry): FlowValidation {
  const problems: FlowProblem[] = [];
  const add = (path: string, message: string) => problems.push({ path, message });

  const bytes = new TextEncoder().encode(JSON.stringify(raw) ?? "").length;
  if (bytes > FLOW_LIMITS.maxDefinitionBytes) {
    return {
      ok: false,
      problems: [{ path: "", message: `the definition is ${bytes} bytes; at most ${FLOW_LIMITS.maxDefinitionBytes}` }],
    };
  }
  const shape = flowDefinitionSchema.safeParse(raw);
  if (!shape.success) {
    // Report every malformed node and edge by itself, then go on with the well-formed ones.
    const top = raw as { nodes?: unknown; edges?: unknown } | null;
    if (!top || typeof top !== "object" || !Array.isArray(top.nodes)) {
      for (const issue of shape.error.issues) add(formatPath(issue.path), issue.message);
      return { ok: false, problems };
    }
  }
  const source = raw as { nodes: unknown[]; edges?: unknown };
  if (source.nodes.length > FLOW_LIMITS.maxNodes) add("nodes", `at most ${FLOW_LIMITS.maxNodes} nodes`);
  if (source.nodes.length === 0) add("nodes", "a flow needs at least one node");
  const rawEdges = Array.isArray(source.edges) ? source.edges : source.edges === undefined ? [] : null;
  if (rawEdges === null) add("edges", "must be an array");
  else if (rawEdges.length > FLOW_LIMITS.maxEdges) add("edges", `at most ${FLOW_LIMITS.maxEdges} edges`);

  const nodes: Array<{ index: number; node: FlowNode }> = [];
  source.nodes.forEach((candidate, index) => {
    const parsed = flowNodeSchema.safeParse(candidate);
    if (parsed.success) nodes.push({ index, node: parsed.data });
    else for (const issue of parsed.error.issues) add(formatPath(["nodes", index, ...issue.path]), issue.message);
  });
  const edges: Array<{ index: number; edge: FlowEdge }> = [];
  (rawEdges ?? []).forEach((candidate, index) => {
    const parsed = flowEdgeSchema.safeParse(candidate);
    if (parsed.success) edges.push({ index, edge: parsed.data });
    else for (const issue of parsed.error.issues) add(formatPath(["edges", index, ...issue.path]), issue.message);
  });

  // Node ids are unique.
  const firstIndex = new Map<string, number>();
  for (const { index, node } of nodes) {
    const earlier = firstIndex.get(node.id);
    if (earlier !== undefined) add(`nodes[${index}].id`, `duplicate node id "${node.id}" (also nodes[${earlier}])`);
    else firstIndex.set(node.id, index);
  }

  // Edges join existing nodes, once.
  const seenEdges = new Set<string>();
  const goodEdges: FlowEdge[] = [];
  for (const { index, edge } of edges) {
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

  const graph = buildGraph(
    nodes.filter(({ index, node }) => firstIndex.get(node.id) === index).map(({ node }) => node),
    goodEdges,
  );
  const cycle = findCycle(graph);
  if (cycle) add("edges", `the graph has a cycle: ${cycle.join(" → ")}`);

  // Each node: a known type, a valid config, templates that parse and reference upstream nodes.
  const configs = new Map<string, Record<string, unknown>>();
  let triggerSeen: string | undefined;
  for (const { index, node } of nodes) {
    const at = (...rest: PropertyKey[]) => formatPath(["nodes", index, ...rest]);
    const definition = registry.get(node.type);
    if (!definition) {
      add(at("type"), `unknown node type "${node.type}"`);
      continue;
    }
    for (const key of Object.keys(node.config)) {
      if (!(key in definition.config.shape)) add(at("config", key), `unknown config key for ${node.type}`);
    }
    const literal = literalFields(definition);
    const parsed = definition.config.safeParse(node.config);
    if (parsed.success) configs.set(node.id, parsed.data as Record<string, unknown>);
    else {
      for (const issue of configIssues(node.config, parsed.error, literal))
        add(at("config", ...issue.path), issue.message);
    }

    const upstream = cycle ? undefined : ancestorsOf(graph, node.id);
    const templated = Object.fromEntries(Object.entries(node.config).filter(([key]) => !literal.has(key)));
    for (const finding of findTemplates(templated)) {
      if (finding.error) add(at("config", ...finding.at), finding.error);
      for (const path of finding.paths) {
        if (path[0] !== "nodes") continue;
        const target = path[1];
        if (typeof target !== "string") add(at("config", ...finding.at), "{{ nodes.<id> }} needs a node id");
        else if (upstream && !upstream.has(target)) {
          add(at("config", ...finding.at), `{{ nodes.${target} }}: "${target}" is not upstream of "${node.id}"`);
        }
      }
    }

    // The retry policy it runs with (its own values over its type's defaults) must hold together.
    const { retry } = nodeSettings(node, definition);
    if (retry.max_interval_ms < retry.initial_interval_ms) {
      const own = node.retry?.max_interval_ms !== undefined ? "max_interval_ms" : "initial_interval_ms";
      add(
        at("retry", own),
        `the longest wait between retries (max_interval_ms, ${retry.max_interval_ms}) is shorter than the first (initial_interval_ms, ${retry.initial_interval_ms})`,
      );
    }
    if (node.on_error === "branch") {
      const labels = definition.branches && configs.has(node.id) ? definition.branches(configs.get(node.id)!) : [];
      if (labels.includes(ERROR_BRANCH)) {
        add(
          at("on_error"),
          `"${node.id}" has a branch named "${ERROR_BRANCH}", the name of its error handle: rename it`,
        );
      }
    }

    if (definition.kind === "trigger") {
      if (triggerSeen) add(at("type"), `a flow has at most one trigger node ("${triggerSeen}" is one)`);
      triggerSeen ??= node.id;
      if ((graph.parents.get(node.id) ?? []).length > 0) {
        add(at("id"), `the trigger "${node.id}" is the entry of the flow: no edge may lead into it`);
      }
    }
  }

  // Labelled edges leave branching nodes, with labels those nodes produce, or error handles.
  for (const { index, edge } of edges) {
    const from = nodes.find(({ node }) => node.id === edge.from)?.node;
    const definition = from && registry.get(from.type);
    if (!from || !definition) continue;
    // The error handle: its edges run only when the node fails (on_error: "branch").
    if (edge.branch === ERROR_BRANCH && from.on_error === "branch") continue;
    const config = configs.get(from.id);
    const labels = definition.branches && config ? definition.branches(config) : undefined;
    if (edge.branch === ERROR_BRANCH && !labels?.includes(ERROR_BRANCH)) {
      add(`edges[${index}].branch`, `"${from.id}" has no error handle: set its on_error to "branch"`);
      continue;
    }
    if (!definition.branches) {
      if (edge.branch !== undefined) add(`edges[${index}].branch`, `"${from.id}" (${from.type}) has no branches`);
      continue;
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

  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, definition: flowDefinitionSchema.parse(raw), problems: [] };
}
