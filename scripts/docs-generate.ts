// `npm run docs:generate`: the generated parts of docs/api.md (every endpoint, from the API's
// OpenAPI document, built in-process as `npm run web:types` builds it) and docs/configuration.md
// (every setting, from .env.example). Each page keeps its hand-written text above a marker line
// and gets the rest from here; scripts/docs-generate.test.ts fails when a committed page is stale.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { format, resolveConfig } from "prettier";
import { buildOpenApiDocument } from "../api/openapi-document.js";
import { projectRoot } from "./infra/paths.js";

export const API_PAGE = path.join(projectRoot, "docs", "api.md");
export const CONFIGURATION_PAGE = path.join(projectRoot, "docs", "configuration.md");
const ENV_EXAMPLE = path.join(projectRoot, ".env.example");

/** The line under which a page is generated: what is above it is written by hand. */
export const GENERATED_MARKER =
  "<!-- Generated below this line by `npm run docs:generate` (scripts/docs-generate.ts): do not edit it, change the source and run it again. -->";

// --- The API reference -------------------------------------------------------------------------

interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
}
interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  /** The API token scope it needs; `session`: members' sessions only (api/http/openapi.ts). */
  "x-token-scope"?: string;
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
}
export interface ApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

/** The tags in the order a reader meets them, with their headings; a new tag comes last under its own name. */
const TAG_TITLES: Record<string, string> = {
  auth: "Sessions",
  workspaces: "Workspaces, members and invites",
  flows: "Flows",
  runs: "Runs",
  operations: "Bulk operations",
  waits: "Waits",
  nodes: "Nodes",
  agents: "Agents",
  mcp: "MCP: flows as tools",
  credentials: "Credentials",
  webhooks: "Outgoing webhooks",
  hooks: "Inbound hooks",
  metrics: "Metrics",
  usage: "Usage and cost",
  budgets: "Budgets",
  audit: "Audit log",
  "temporal-codec": "The Temporal UI's codec",
  health: "Health",
  meta: "This reference",
};

const refName = (ref: string) => ref.slice(ref.lastIndexOf("/") + 1);

/**
 * A schema in a few words: a named schema by its name, an object by its keys (`?` when optional),
 * inline objects spelt out down to `depth` levels.
 */
export function shape(schema: Schema | undefined, depth = 1): string {
  if (!schema) return "any";
  if (schema.$ref) return refName(schema.$ref);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return alternatives.map((alternative) => shape(alternative, depth)).join(" or ");
  if (schema.items) return `[${shape(schema.items, depth)}]`;
  if (schema.properties) {
    if (depth === 0) return "{…}";
    const required = new Set(schema.required ?? []);
    const keys = Object.entries(schema.properties).map(([key, value]) => {
      const inner = shape(value, depth - 1);
      const named = /^[[{A-Z]/.test(inner) && inner !== "{…}" ? `: ${inner}` : "";
      return `${key}${required.has(key) ? "" : "?"}${named}`;
    });
    return `{${keys.join(", ")}}`;
  }
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : schema.type;
  return type ?? "any";
}

const jsonSchema = (content: Record<string, { schema?: Schema }> | undefined) =>
  content?.["application/json"]?.schema ?? Object.values(content ?? {})[0]?.schema;

/** `GET /api/runs?flow_id=&status=`, with the query parameters an operation takes. */
function endpointLine(method: string, route: string, operation: Operation): string {
  const query = (operation.parameters ?? []).filter((parameter) => parameter.in === "query");
  const search = query.length ? `?${query.map((parameter) => `${parameter.name}=`).join("&")}` : "";
  return `${method.toUpperCase()} ${route}${search}`;
}

/** What goes in: the body's keys and the headers the operation reads. */
function requestText(operation: Operation): string {
  const parts: string[] = [];
  const body = operation.requestBody?.content;
  if (body) parts.push(`body \`${shape(jsonSchema(body))}\``);
  const headers = (operation.parameters ?? []).filter((parameter) => parameter.in === "header");
  for (const header of headers) parts.push(`header \`${header.name}\``);
  return parts.length ? ` Takes ${parts.join(", ")}.` : "";
}

/** Each documented answer: its status, its description and, for a success with a body, its shape. */
function answersText(operation: Operation): string {
  return Object.entries(operation.responses ?? {})
    .map(([status, response]) => {
      const body = status.startsWith("2") && response.content ? ` \`${shape(jsonSchema(response.content))}\`` : "";
      return `${status} ${(response.description ?? "").trim()}${body}`;
    })
    .join("; ");
}

const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);
const escapeMarkdown = (text: string) => text.replace(/[|*]/g, "\\$&").replace(/</g, "&lt;");

function operationItem(method: string, route: string, operation: Operation): string {
  const scope = operation["x-token-scope"];
  const open =
    operation.security?.length === 0
      ? " No session needed."
      : scope === "session"
        ? " Sessions only (no API token)."
        : scope
          ? ` API token scope: ${scope}.`
          : "";
  const summary = sentence((operation.summary ?? operation.description ?? "").trim());
  const text = `${summary}${open}${requestText(operation)} Answers: ${answersText(operation)}.`;
  return `- \`${endpointLine(method, route, operation)}\`: ${escapeMarkdown(text)}`;
}

/** Every operation of the document, grouped by tag, in the document's order within a tag. */
export function renderApiReference(document: ApiDocument): string {
  const byTag = new Map<string, string[]>();
  for (const [route, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const tag = operation.tags?.[0] ?? "other";
      byTag.set(tag, [...(byTag.get(tag) ?? []), operationItem(method, route, operation)]);
    }
  }
  const known = Object.keys(TAG_TITLES).filter((tag) => byTag.has(tag));
  const others = [...byTag.keys()].filter((tag) => !(tag in TAG_TITLES)).sort();
  const count = [...byTag.values()].reduce((sum, items) => sum + items.length, 0);
  const sections = [...known, ...others].map(
    (tag) => `### ${TAG_TITLES[tag] ?? tag}\n\n${byTag.get(tag)!.join("\n")}\n`,
  );
  const schemas = Object.entries(document.components?.schemas ?? {}).map(
    ([name, schema]) => `- \`${name}\`: \`${shape(schema, 3)}\``,
  );
  return [
    `## Endpoints\n\n${count} operations, from \`GET /api/openapi.json\`.\n`,
    ...sections,
    `## Schemas\n\nThe named answers above, by their keys (\`?\`: may be absent); \`/docs\` has their types.\n\n${schemas.join("\n")}\n`,
  ].join("\n");
}

// --- The configuration reference ---------------------------------------------------------------

interface SettingGroup {
  section: string;
  comment: string[];
  settings: Array<{ key: string; value: string }>;
}

/** .env.example read as its sections and its groups of keys under one comment. */
export function readEnvExample(text: string): SettingGroup[] {
  const groups: SettingGroup[] = [];
  let section = "";
  let comment: string[] = [];
  let current: SettingGroup | undefined;
  for (const line of text.split("\n")) {
    const heading = /^# --- (.+) ---$/.exec(line);
    const setting = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (heading) [section, comment, current] = [heading[1]!, [], undefined];
    else if (setting) {
      if (!current) groups.push((current = { section, comment, settings: [] }));
      current.settings.push({ key: setting[1]!, value: setting[2]! });
      comment = [];
    } else if (line.startsWith("#")) [comment, current] = [[...comment, line.replace(/^#\s?/, "")], undefined];
    else [comment, current] = [[], undefined];
  }
  return groups.filter((group) => group.section !== "");
}

const settingText = ({ key, value }: { key: string; value: string }) => (value ? `\`${key}=${value}\`` : `\`${key}\``);

/** Every key of .env.example with its comment, under the file's sections. */
export function renderConfigurationReference(envExample: string): string {
  const groups = readEnvExample(envExample);
  const sections = [...new Set(groups.map((group) => group.section))].map((section) => {
    const items = groups
      .filter((group) => group.section === section)
      .map((group) => `- ${group.settings.map(settingText).join(", ")}: ${escapeMarkdown(group.comment.join(" "))}`);
    return `### ${section}\n\n${items.join("\n")}\n`;
  });
  return `## Every setting\n\nFrom \`.env.example\` (a value shown is the one it suggests; none: unset).\n\n${sections.join("\n")}`;
}

// --- The pages ---------------------------------------------------------------------------------

/** A page's hand-written part (up to the marker) followed by `generated`, formatted as prettier would. */
async function pageWith(file: string, generated: string): Promise<string> {
  const text = readFileSync(file, "utf8");
  const at = text.indexOf(GENERATED_MARKER);
  if (at < 0) throw new Error(`${path.relative(projectRoot, file)} has no line ${GENERATED_MARKER}`);
  const page = `${text.slice(0, at + GENERATED_MARKER.length)}\n\n${generated}`;
  const options = await resolveConfig(file);
  return format(page, { ...options, filepath: file });
}

/** Each generated page's text as `npm run docs:generate` writes it now. */
export async function renderGeneratedPages(): Promise<Array<{ file: string; text: string }>> {
  const document = (await buildOpenApiDocument()) as unknown as ApiDocument;
  return [
    { file: API_PAGE, text: await pageWith(API_PAGE, renderApiReference(document)) },
    {
      file: CONFIGURATION_PAGE,
      text: await pageWith(CONFIGURATION_PAGE, renderConfigurationReference(readFileSync(ENV_EXAMPLE, "utf8"))),
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const { file, text } of await renderGeneratedPages()) {
    const changed = readFileSync(file, "utf8") !== text;
    if (changed) writeFileSync(file, text);
    process.stdout.write(`${path.relative(projectRoot, file)} ${changed ? "written" : "is up to date"}\n`);
  }
}
