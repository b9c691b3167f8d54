// The template syntax of config values: `{{ path }}` references data of the run, for example
// `{{ input.user.id }}`, `{{ nodes.fetch.body.items[0] }}`, `{{ trigger.query["page size"] }}`.
// Deliberately small: a path into plain JSON, nothing is evaluated, no functions, no operators,
// only own properties (so `constructor` or `__proto__` lead nowhere). `\{{` writes a literal `{{`.
// Pure and deterministic: the workflow renders templates too.

export type PathSegment = string | number;

export type TemplatePart = { text: string } | { path: PathSegment[]; source: string };

export const TEMPLATE_ROOTS = ["input", "trigger", "nodes", "run"] as const;
export type TemplateRoot = (typeof TEMPLATE_ROOTS)[number];

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
}

export class TemplateSyntaxError extends Error {
  override name = "TemplateSyntaxError";
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

function toText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/**
 * Renders one string: a string that is exactly one `{{ path }}` becomes the value itself (a
 * number stays a number, an object an object, a missing value undefined); otherwise the parts
 * are joined as text, objects as JSON and missing values as "".
 */
export function renderString(value: string, scope: TemplateScope): unknown {
  if (!value.includes("{{")) return value;
  const parts = parseTemplate(value);
  if (parts.length === 1 && "path" in parts[0]!) return lookup(scope, parts[0].path);
  return parts.map((part) => ("path" in part ? toText(lookup(scope, part.path)) : part.text)).join("");
}

/** Renders every string inside a JSON value; keys are left as they are. */
export function renderValue(value: unknown, scope: TemplateScope): unknown {
  if (typeof value === "string") return renderString(value, scope);
  if (Array.isArray(value)) return value.map((item) => renderValue(item, scope));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const rendered = renderValue(item, scope);
      if (rendered !== undefined) out[key] = rendered;
    }
    return out;
  }
  return value;
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
