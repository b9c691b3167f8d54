// Help for {{ }} templates in the editor: a sample of the data a node sees (its input and its
// upstream nodes' outputs from the last run or a node test), references to insert from it,
// completion inside {{ }}, and a preview rendered by the worker's own template engine
// (core/flows/template.ts, pure: the same code renders the run's templates).
import {
  findTemplates,
  renderValue,
  TEMPLATE_ROOTS,
  type PathSegment,
  type TemplateScope,
} from "../../../core/flows/template";
import type { ConfigField, Step } from "../types";
import { BARE_TEMPLATE, parseFieldInput } from "./config-fields";

/** The nodes upstream of `nodeId` (every node with a path to it), nearest first. */
export function upstreamOf(nodeId: string, edges: ReadonlyArray<{ from: string; to: string }>): string[] {
  const found: string[] = [];
  let frontier = [nodeId];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const id of frontier)
      for (const edge of edges)
        if (edge.to === id && edge.from !== nodeId && !found.includes(edge.from)) {
          found.push(edge.from);
          next.push(edge.from);
        }
    frontier = next;
  }
  return found;
}

/** Where a sample came from, said above it. */
export interface Sample {
  scope: TemplateScope;
  /** "the run run_…", "a node test" or "pinned data". */
  source: string;
}

/**
 * The data a node's templates read, from the last run's steps and the node tests made since: its
 * input as the engine gave it, the run's input (trigger), and each node's last successful output.
 * Pinned outputs win over both, and a node whose one parent is pinned gets its pin as input (what
 * a test run of the draft would give it).
 */
export function sampleScope(
  nodeId: string,
  edges: ReadonlyArray<{ from: string; to: string }>,
  run: { id: string; flow_id: string; version: number; started_at: string; steps: Step[] } | null,
  tested: ReadonlyMap<string, unknown>,
  pinned: ReadonlyMap<string, unknown> = new Map(),
): Sample | null {
  const nodes: Record<string, unknown> = {};
  for (const step of run?.steps ?? []) if (step.status === "success") nodes[step.node_id] = step.output;
  for (const [id, output] of [...tested, ...pinned]) nodes[id] = output;
  if (Object.keys(nodes).length === 0) return null;
  const parents = edges.filter((edge) => edge.to === nodeId).map((edge) => edge.from);
  const pinnedParent = parents.length === 1 && pinned.has(parents[0]!);
  const own = run?.steps.find((step) => step.node_id === nodeId && step.input_unavailable === null);
  const hasParents = new Set(edges.map((edge) => edge.to));
  const entry = run?.steps.find((step) => !hasParents.has(step.node_id));
  const input = pinnedParent || !own ? (parents.length === 1 ? nodes[parents[0]!] : undefined) : own.input;
  return {
    scope: {
      input,
      trigger: entry?.input,
      nodes,
      run: run ? { id: run.id, flow_id: run.flow_id, version: run.version, started_at: run.started_at } : {},
    },
    source: pinnedParent ? "pinned data" : tested.size > 0 ? "a node test" : run ? `the run ${run.id}` : "pinned data",
  };
}

/** A path as a template reference: nodes.fetch.body.items[0], input["page size"]. */
export function referenceOf(path: readonly PathSegment[]): string {
  return path
    .map((segment, index) => {
      if (typeof segment === "number") return `[${segment}]`;
      if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(segment)) return index === 0 ? segment : `.${segment}`;
      return `[${JSON.stringify(segment)}]`;
    })
    .join("");
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** Whether `caret` sits inside a JSON string literal of `text` (between its quotes). */
export function insideJsonString(text: string, caret: number): boolean {
  let inside = false;
  for (let i = 0; i < caret && i < text.length; i++) {
    if (inside && text[i] === "\\") i++;
    else if (text[i] === '"') inside = !inside;
  }
  return inside;
}

/** A field a reference goes into: its type, its text, and whether it is a map of named entries. */
export interface ReferenceTarget {
  type: string;
  text: string;
  /** A json field of named entries (a set node's fields, headers): a reference becomes a new entry. */
  map?: boolean;
}

/** A field's text with a reference put in, and where the caret goes after it (when it stays in line). */
export interface Inserted {
  text: string;
  caret?: number;
}

const atCaret = (text: string, insert: string, caret: number): Inserted => ({
  text: `${text.slice(0, caret)}${insert}${text.slice(caret)}`,
  caret: caret + insert.length,
});

/** An object with an entry named after the path's last key (name, name_2… when taken). */
function withEntry(object: Record<string, unknown>, path: readonly PathSegment[], template: string): string {
  const base = String(path.filter((segment) => typeof segment === "string").at(-1) ?? "value");
  let key = base;
  for (let n = 2; Object.hasOwn(object, key); n++) key = `${base}_${n}`;
  return JSON.stringify({ ...object, [key]: template }, null, 2);
}

/**
 * A field's text with a reference put in, as fits the field: a text field gets `{{ ref }}` at the
 * caret; a json field, inside the string the caret is in, else as its value (a bare template: the
 * value itself, any type), or as a new entry of a map field (`"name": "{{ ref }}"`) or of an object
 * already there, or as an array's next item.
 */
export function insertReference(field: ReferenceTarget, path: readonly PathSegment[], caret?: number): Inserted {
  const template = `{{ ${referenceOf(path)} }}`;
  const at = caret ?? field.text.length;
  if (field.type !== "json") return atCaret(field.text, template, at);
  const text = field.text;
  if (caret !== undefined && insideJsonString(text, caret)) return atCaret(text, template, caret);
  if (text.trim() === "" || BARE_TEMPLATE.test(text)) {
    return field.map ? { text: withEntry({}, path, template) } : { text: template, caret: template.length };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Half typed: the reference goes where the caret is, and the field says what is left to fix.
    return atCaret(text, template, at);
  }
  if (isObject(value)) return { text: withEntry(value, path, template) };
  if (Array.isArray(value)) return { text: JSON.stringify([...value, template], null, 2) };
  // A single value (a number, a string) is replaced by the reference.
  return field.map ? { text: withEntry({}, path, template) } : { text: template, caret: template.length };
}

/** The value at a path of the sample, or undefined. */
export function valueAt(scope: TemplateScope, path: readonly PathSegment[]): unknown {
  let current: unknown = scope;
  for (const segment of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

export interface Completion {
  /** The text to replace (the path typed so far after `{{`), as offsets into the field's text. */
  from: number;
  to: number;
  options: string[];
}

/** The references to offer at the caret when it sits in an open `{{ …`: the sample's next keys. */
export function completeTemplate(text: string, caret: number, scope: TemplateScope | null): Completion | null {
  const before = text.slice(0, caret);
  const open = before.lastIndexOf("{{");
  if (open < 0 || before.lastIndexOf("}}") > open) return null;
  const typed = text.slice(open + 2, caret);
  const from = open + 2 + (typed.length - typed.trimStart().length);
  const partial = typed.trimStart();
  if (!/^[A-Za-z0-9_$.\-[\]"]*$/.test(partial)) return null;
  const cut = Math.max(partial.lastIndexOf("."), partial.lastIndexOf("["));
  const parentText = cut < 0 ? "" : partial.slice(0, cut);
  const parent = parentText ? pathOf(parentText) : [];
  if (parent === null) return null;
  const keys = parent.length === 0 ? [...TEMPLATE_ROOTS] : scope ? childKeys(valueAt(scope, parent)) : [];
  // What is typed after the last "." or "[" narrows the keys (quotes aside).
  const tail = partial.slice(cut + 1).replace(/^"/, "");
  const options = keys
    .filter((key) => String(key).startsWith(tail))
    .map((key) => referenceOf([...parent, key]))
    .filter((reference) => reference !== partial);
  return { from, to: caret, options };
}

/** A reference typed so far, parsed to its path (null when it is not one). */
function pathOf(reference: string): PathSegment[] | null {
  const found = findTemplates(`{{ ${reference} }}`);
  return found.length === 1 && !found[0]!.error ? found[0]!.paths[0]! : null;
}

function childKeys(value: unknown): PathSegment[] {
  if (Array.isArray(value)) return value.slice(0, 20).map((_item, index) => index);
  return isObject(value) ? Object.keys(value).slice(0, 200) : [];
}

export type Preview = { value: unknown } | { error: string } | { missing: true };

/**
 * A field's value rendered against the sample by the worker's engine, or why it cannot be: the text
 * read exactly as a save reads it (parseFieldInput), so the preview shows what the run will see.
 */
export function previewOf(field: ConfigField, text: string, scope: TemplateScope): Preview {
  const parsed = parseFieldInput(field, text);
  if (!parsed.ok) return { error: parsed.error };
  try {
    const value = renderValue(parsed.value, scope);
    return value === undefined ? { missing: true } : { value };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}
