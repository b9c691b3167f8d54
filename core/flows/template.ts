// The template syntax of config values: `{{ path }}` references data of the run, for example
// `{{ input.user.id }}`, `{{ nodes.fetch.body.items[0] }}`, `{{ trigger.query["page size"] }}`.
// Deliberately small: a path into plain JSON, nothing is evaluated, no functions, no operators,
// only own properties (so `constructor` or `__proto__` lead nowhere). `\{{` writes a literal `{{`.
// Pure and deterministic: the workflow finds templates too.
//
// Rendering runs on the event loop of whichever process runs the node (the API's, under npm start),
// so its cost is bounded: parsing is linear in the config's text, a lookup in its path, and what a
// render produces is charged against a budget of MAX_RENDERED_BYTES, counted by a walk that stops
// at the budget (json-size.ts). A value a template takes in whole costs its size each time: one
// reference to a big value is fine, the same value named 500 times (which the next node would have
// to write 500 times) is not.
import { jsonSizeWithin, scalarJsonSize } from "./json-size.js";

export type PathSegment = string | number;

export type TemplatePart = { text: string } | { path: PathSegment[]; source: string };

export const TEMPLATE_ROOTS = ["input", "trigger", "nodes", "run", "item", "item_index"] as const;
/** Roots only a node that runs per item (its `items` setting) can read: the item and its place. */
export const ITEM_ROOTS: ReadonlySet<string> = new Set(["item", "item_index"]);

/** What `{{ … }}` paths resolve against while a node runs. */
export interface TemplateScope {
  /** The node's input (see README: "Data between nodes"). */
  input: unknown;
  /** The run's input, as the trigger received it. */
  trigger: unknown;
  /** Outputs of finished upstream nodes by node id. */
  nodes: Record<string, unknown>;
  /** Facts about the run: id, flow_id, version, started_at. */
  run: Record<string, unknown>;
  /** A node that runs per item: the item, and its place in the array (from 0). */
  item?: unknown;
  item_index?: number;
}

export class TemplateSyntaxError extends Error {
  override name = "TemplateSyntaxError";
}

/** What one render of a node's config may produce, as JSON. */
export const MAX_RENDERED_BYTES = 32 * 1024 * 1024;

/** A render that would produce more than its budget, or a value it cannot write as text. */
export class TemplateLimitError extends Error {
  override name = "TemplateLimitError";
}

/**
 * Parsed templates kept by whoever renders the same config many times (a node that runs per item),
 * keyed by their text: a string is parsed once for all its renders.
 */
export type ParsedTemplates = Map<string, TemplatePart[]>;

/** What is left of one render's budget; each value taken in whole is measured once per render. */
class RenderBudget {
  private left: number;
  private readonly sizes = new Map<object, number>();

  constructor(
    private readonly maxBytes: number,
    readonly parsed?: ParsedTemplates,
  ) {
    this.left = maxBytes;
  }

  /** The string's parts, parsed once per `parsed` when there is one. */
  partsOf(value: string): TemplatePart[] {
    if (!this.parsed) return parseTemplate(value);
    let parts = this.parsed.get(value);
    if (!parts) this.parsed.set(value, (parts = parseTemplate(value)));
    return parts;
  }

  spend(bytes: number): void {
    this.left -= bytes;
    if (this.left < 0) {
      const mb = Math.round((this.maxBytes / 1024 / 1024) * 10) / 10;
      throw new TemplateLimitError(
        `its templates render to more than ${mb} MB of data (each use of a value counts its whole size)`,
      );
    }
  }

  /** Spends a value's JSON size, measured no further than what is left. */
  spendValue(value: unknown): void {
    if (value === null || typeof value !== "object") return this.spend(scalarJsonSize(value));
    let size = this.sizes.get(value);
    if (size === undefined) {
      size = jsonSizeWithin(value, this.left);
      this.sizes.set(value, size);
    }
    this.spend(size);
  }
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*/;

function parsePath(source: string): PathSegment[] {
  let rest = source.trim();
  const root = IDENTIFIER.exec(rest);
  if (!root)
    throw new TemplateSyntaxError(`"{{ ${source.trim()} }}" must start with one of ${TEMPLATE_ROOTS.join(", ")}`);
  if (!(TEMPLATE_ROOTS as readonly string[]).includes(root[0])) {
    throw new TemplateSyntaxError(`unknown root "${root[0]}": use one of ${TEMPLATE_ROOTS.join(", ")}`);
  }
  const path: PathSegment[] = [root[0]];
  rest = rest.slice(root[0].length);
  while (rest.length > 0) {
    let match: RegExpExecArray | null;
    if ((match = /^\.([A-Za-z_$][A-Za-z0-9_$-]*)/.exec(rest))) path.push(match[1]!);
    else if ((match = /^\[(\d{1,9})\]/.exec(rest))) path.push(Number(match[1]));
    else if ((match = /^\["((?:[^"\\]|\\.)*)"\]/.exec(rest))) path.push(JSON.parse(`"${match[1]}"`) as string);
    else if ((match = /^\['((?:[^'\\]|\\.)*)'\]/.exec(rest))) path.push(match[1]!.replace(/\\(.)/g, "$1"));
    else throw new TemplateSyntaxError(`cannot read "${rest}" in "{{ ${source.trim()} }}": use .name, [0] or ["key"]`);
    rest = rest.slice(match[0].length);
  }
  return path;
}

/** Splits a string into text and `{{ path }}` parts. */
export function parseTemplate(value: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let text = "";
  let i = 0;
  while (i < value.length) {
    if (value.startsWith("\\{{", i)) {
      text += "{{";
      i += 3;
    } else if (value.startsWith("{{", i)) {
      const end = value.indexOf("}}", i + 2);
      if (end < 0) throw new TemplateSyntaxError(`unclosed "{{" at position ${i}`);
      if (text) parts.push({ text });
      text = "";
      const source = value.slice(i + 2, end);
      parts.push({ path: parsePath(source), source: source.trim() });
      i = end + 2;
    } else {
      text += value[i];
      i += 1;
    }
  }
  if (text) parts.push({ text });
  return parts;
}

export function hasTemplate(value: string): boolean {
  return /(^|[^\\])\{\{/.test(value);
}

function lookup(scope: TemplateScope, path: PathSegment[]): unknown {
  let current: unknown = scope;
  for (const segment of path) {
    if (current === null || typeof current !== "object") return undefined;
    if (Array.isArray(current)) {
      if (typeof segment !== "number") return undefined;
      current = current[segment];
    } else {
      if (!Object.prototype.hasOwnProperty.call(current, segment)) return undefined;
      current = (current as Record<string, unknown>)[String(segment)];
    }
  }
  return current;
}

/** A value as text, its size spent first (so that the text is never written past the budget). */
function toText(value: unknown, budget: RenderBudget): string {
  if (value === undefined || value === null) return "";
  budget.spendValue(value);
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  try {
    return JSON.stringify(value);
  } catch (error) {
    // Nesting deeper than JSON.stringify's stack: the value could not leave the run either.
    throw new TemplateLimitError(`a value its templates write as text cannot be written: ${(error as Error).message}`);
  }
}

function renderWithin(value: string, scope: TemplateScope, budget: RenderBudget): unknown {
  if (!value.includes("{{")) return value;
  const parts = budget.partsOf(value);
  if (parts.length === 1 && "path" in parts[0]!) {
    const found = lookup(scope, parts[0].path);
    budget.spendValue(found);
    return found;
  }
  let text = "";
  for (const part of parts) {
    if ("path" in part) text += toText(lookup(scope, part.path), budget);
    else {
      budget.spend(part.text.length);
      text += part.text;
    }
  }
  return text;
}

function renderValueWithin(value: unknown, scope: TemplateScope, budget: RenderBudget): unknown {
  if (typeof value === "string") return renderWithin(value, scope, budget);
  if (Array.isArray(value)) return value.map((item) => renderValueWithin(item, scope, budget));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const rendered = renderValueWithin(item, scope, budget);
      if (rendered !== undefined) out[key] = rendered;
    }
    return out;
  }
  return value;
}

/**
 * Renders one string: a string that is exactly one `{{ path }}` becomes the value itself (a
 * number stays a number, an object an object, a missing value undefined); otherwise the parts
 * are joined as text, objects as JSON and missing values as "". Fails with a TemplateLimitError
 * past `maxBytes` of data.
 */
export function renderString(value: string, scope: TemplateScope, maxBytes = MAX_RENDERED_BYTES): unknown {
  return renderWithin(value, scope, new RenderBudget(maxBytes));
}

/**
 * Renders every string inside a JSON value (keys are left as they are), all of them within one
 * budget of `maxBytes` of data (TemplateLimitError past it).
 */
export function renderValue(
  value: unknown,
  scope: TemplateScope,
  maxBytes = MAX_RENDERED_BYTES,
  parsed?: ParsedTemplates,
): unknown {
  return renderValueWithin(value, scope, new RenderBudget(maxBytes, parsed));
}

export interface TemplateFinding {
  /** Where the string sits in the value, e.g. ["body", "user"]. */
  at: PathSegment[];
  paths: PathSegment[][];
  error?: string;
}

/** Every templated string inside a JSON value, with its parsed paths or its syntax error. */
export function findTemplates(value: unknown, at: PathSegment[] = []): TemplateFinding[] {
  if (typeof value === "string") {
    if (!value.includes("{{")) return [];
    try {
      const paths = parseTemplate(value).flatMap((part) => ("path" in part ? [part.path] : []));
      return paths.length > 0 ? [{ at, paths }] : [];
    } catch (error) {
      return [{ at, paths: [], error: (error as Error).message }];
    }
  }
  if (Array.isArray(value)) return value.flatMap((item, index) => findTemplates(item, [...at, index]));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([key, item]) => findTemplates(item, [...at, key]));
  }
  return [];
}
