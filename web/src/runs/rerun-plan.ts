// What the rerun dialog of a run's page works out before it asks the API: which nodes a rerun from
// a node would carry over (so their outputs can be corrected), the run's input as the trigger got
// it, and the body of POST /api/runs/{id}/rerun from what was typed. Pure; the API decides anew.
import type { paths } from "../api-types";
import { canonicalJson } from "../components/line-diff";
import type { NodeProgress } from "./run-progress";

export type RerunBody = NonNullable<
  paths["/api/runs/{id}/rerun"]["post"]["requestBody"]
>["content"]["application/json"];

type Graph = { edges?: { from: string; to: string; branch?: string | null }[] | null };

/** Each node's parents, from the run's version's edges. */
function parentsOf(graph: Graph | undefined): Map<string, string[]> {
  const parents = new Map<string, string[]>();
  for (const edge of graph?.edges ?? []) parents.set(edge.to, [...(parents.get(edge.to) ?? []), edge.from]);
  return parents;
}

/** The nodes `from` leads to, itself included. */
function downstreamOf(graph: Graph | undefined, from: string): Set<string> {
  const seen = new Set<string>();
  const pending = [from];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    for (const edge of graph?.edges ?? []) if (edge.from === next) pending.push(edge.to);
  }
  return seen;
}

const succeeded = (node: NodeProgress) => node.state === "success" || node.state === "carried_over";

/**
 * The nodes a rerun from `from` carries over, in the order they run (as the API decides on the
 * run's version): those that succeeded, are not `from` or after it, and whose parents are all
 * carried. From the start (`null`) nothing is carried.
 */
export function carriedNodes(graph: Graph | undefined, nodes: NodeProgress[], from: string | null): NodeProgress[] {
  if (from === null) return [];
  const parents = parentsOf(graph);
  const again = downstreamOf(graph, from);
  const carried = new Set<string>();
  for (const node of nodes) {
    if (!succeeded(node) || again.has(node.id)) continue;
    if ((parents.get(node.id) ?? []).every((parent) => carried.has(parent))) carried.add(node.id);
  }
  return nodes.filter((node) => carried.has(node.id));
}

/** The nodes just before `from` (its parents), in run order. */
export function nodesBefore(graph: Graph | undefined, nodes: NodeProgress[], from: string | null): Set<string> {
  if (from === null) return new Set();
  const parents = new Set(parentsOf(graph).get(from) ?? []);
  return new Set(nodes.filter((node) => parents.has(node.id)).map((node) => node.id));
}

/** The run's input as its trigger (the node with no parents) received it, when the step log has it. */
export function runInput(graph: Graph | undefined, nodes: NodeProgress[]): Record<string, unknown> | undefined {
  const parents = parentsOf(graph);
  const entries = nodes.filter((node) => (parents.get(node.id) ?? []).length === 0);
  if (entries.length !== 1) return undefined;
  const step = entries[0]!.attempts.at(-1);
  if (!step || step.input_unavailable) return undefined;
  return isObject(step.input) && !isStored(step.input) ? step.input : undefined;
}

/** A value the API cut short or stored apart ({truncated, bytes, preview}, {$blob}): not for editing. */
export function isStored(value: unknown): boolean {
  return isObject(value) && (value.truncated === true || "$blob" in value);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export type Parsed<T> = { value: T } | { error: string };

/** JSON typed in a field named `field`: its value, or an error naming the field. Empty reads as absent. */
export function parseJsonField(text: string, field: string, { object = false } = {}): Parsed<unknown> {
  if (text.trim() === "") return { value: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `${field} is not valid JSON: ${(error as Error).message}` };
  }
  if (object && !isObject(value)) return { error: `${field} must be a JSON object ({ … })` };
  return { value };
}

export interface RerunChoice {
  /** The node to run from; null: the whole flow from the start. */
  from: string | null;
  /** Retry semantics: from the failed node, carrying every success. */
  fromFailed?: boolean;
  version: "run" | "latest";
  /** The input typed, and the run's own (sent only when it differs). */
  input?: { text: string; original: Record<string, unknown> | undefined };
  /** Outputs to replace: node id → { label, text }. */
  outputs?: Map<string, { label: string; text: string }>;
}

/** The request body, or the errors that block it (each naming its field). */
export function rerunBody(choice: RerunChoice): { body: RerunBody } | { errors: string[] } {
  const errors: string[] = [];
  const body: RerunBody = { version: choice.version };
  if (choice.fromFailed) body.from_failed = true;
  else if (choice.from !== null) body.from_node = choice.from;
  if (choice.input) {
    const input = parseJsonField(choice.input.text, "The trigger's input", { object: true });
    if ("error" in input) errors.push(input.error);
    else if (input.value !== undefined && JSON.stringify(input.value) !== JSON.stringify(choice.input.original))
      body.input = input.value as Record<string, unknown>;
  }
  const outputs: Record<string, unknown> = {};
  for (const [id, { label, text }] of choice.outputs ?? []) {
    const output = parseJsonField(text, `The output of ${label}`);
    if ("error" in output) errors.push(output.error);
    else if (output.value === undefined)
      errors.push(`The output of ${label} is empty: uncheck it to keep the recorded one`);
    else outputs[id] = output.value;
  }
  if (Object.keys(outputs).length > 0) body.outputs = outputs;
  return errors.length > 0 ? { errors } : { body };
}

type Definition = { nodes: { id: string; name?: string | null; position?: unknown }[]; edges?: Graph["edges"] };

export interface NodeChange {
  id: string;
  /** Its name in the version it is in (the latest's when both), else its id. */
  label: string;
  change: "changed" | "new" | "removed";
}

/** A node as saved, without where the editor placed it (moving a node changes nothing it does). */
const nodeText = (node: Definition["nodes"][number], edges: Graph["edges"]) => {
  const { position: _position, ...rest } = node;
  const into = (edges ?? []).filter((e) => e.to === node.id).map((e) => `${e.from}:${e.branch ?? ""}`);
  return canonicalJson({ ...rest, into: into.sort() });
};

/**
 * What differs between the run's version and the latest on the path a rerun from `from` runs (it
 * and what follows it, in either version; all of the flow from the start): nodes changed (their
 * settings or what leads into them), new, or removed, in the latest's order then the removed.
 */
export function nodeChanges(run: Definition, latest: Definition, from: string | null): NodeChange[] {
  const onPath = (definition: Definition) =>
    from === null ? new Set(definition.nodes.map((n) => n.id)) : downstreamOf({ edges: definition.edges ?? [] }, from);
  const path = new Set([...onPath(run), ...onPath(latest)]);
  const before = new Map(run.nodes.map((n) => [n.id, n]));
  const after = new Set(latest.nodes.map((n) => n.id));
  const changes: NodeChange[] = [];
  for (const node of latest.nodes) {
    if (!path.has(node.id)) continue;
    const old = before.get(node.id);
    const label = node.name || node.id;
    if (!old) changes.push({ id: node.id, label, change: "new" });
    else if (nodeText(old, run.edges) !== nodeText(node, latest.edges))
      changes.push({ id: node.id, label, change: "changed" });
  }
  for (const node of run.nodes) {
    if (path.has(node.id) && !after.has(node.id))
      changes.push({ id: node.id, label: node.name || node.id, change: "removed" });
  }
  return changes;
}
