// Custom nodes: every `*.node.ts`, `*.node.js` or `*.node.mjs` module in CUSTOM_NODES_DIR whose
// default export is a node declaration (see examples/custom-nodes). Loaded at start by the API
// (catalog, validation) and the worker (execution); they appear in the catalog with official: false.
import { readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { NODE_CATEGORIES, type NodeDefinition } from "./nodes/define-node.js";
import { builtinNodes } from "./nodes/index.js";
import { createNodeRegistry, type NodeRegistry } from "./nodes/registry.js";

const MODULE_PATTERN = /\.node\.(ts|js|mjs)$/;

let typeScriptLoader: Promise<void> | undefined;
/** The compiled service (node dist/…) has no loader for .ts files: tsx's, registered once when needed. */
function loadTypeScript(): Promise<void> {
  if (import.meta.url.endsWith(".ts")) return Promise.resolve();
  return (typeScriptLoader ??= import("tsx/esm/api").then(({ register }) => void register()));
}

function checkDeclaration(value: unknown, file: string): NodeDefinition {
  const node = value as Partial<NodeDefinition> | undefined;
  const problems: string[] = [];
  if (!node || typeof node !== "object") problems.push("the default export is not a node declaration (use defineNode)");
  else {
    if (typeof node.type !== "string") problems.push("type is missing");
    if (!node.category || !(NODE_CATEGORIES as readonly string[]).includes(node.category))
      problems.push("category is not one of the catalog's");
    if (!node.config || typeof (node.config as { safeParse?: unknown }).safeParse !== "function")
      problems.push("config is not a zod object");
    if (node.kind !== "activity" || typeof node.execute !== "function")
      problems.push('custom nodes are activities: kind "activity" with execute()');
  }
  if (problems.length > 0) throw new Error(`Custom node ${file}: ${problems.join("; ")}`);
  return { ...(node as NodeDefinition), official: false };
}

export async function loadCustomNodes(dir: string | undefined): Promise<NodeDefinition[]> {
  if (!dir) return [];
  const files = readdirSync(dir)
    .filter((name) => MODULE_PATTERN.test(name))
    .sort();
  const nodes: NodeDefinition[] = [];
  if (files.some((file) => file.endsWith(".ts"))) await loadTypeScript();
  for (const file of files) {
    const module = (await import(pathToFileURL(path.resolve(dir, file)).href)) as { default?: unknown };
    nodes.push(checkDeclaration(module.default, file));
  }
  return nodes;
}

/** The built-in nodes plus those of CUSTOM_NODES_DIR; a custom type may not replace a built-in one. */
export async function loadNodeRegistry(
  customNodesDir: string | undefined,
  extra: NodeDefinition[] = [],
): Promise<NodeRegistry> {
  return createNodeRegistry([...builtinNodes, ...(await loadCustomNodes(customNodesDir)), ...extra]);
}
