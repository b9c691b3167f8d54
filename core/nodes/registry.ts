import { catalogEntry, type CatalogEntry, type NodeCategory, type NodeDefinition } from "./define-node.js";

/** The node types an installation knows: built-ins plus its custom nodes. */
export function createNodeRegistry(definitions: readonly NodeDefinition[]) {
  const byType = new Map<string, NodeDefinition>();
  for (const definition of definitions) {
    if (byType.has(definition.type)) throw new Error(`Node type "${definition.type}" is registered twice`);
    byType.set(definition.type, definition);
  }
  const catalog = [...byType.values()].map(catalogEntry);
  return {
    get: (type: string) => byType.get(type),
    types: () => [...byType.keys()],
    catalog: (category?: NodeCategory): CatalogEntry[] =>
      category ? catalog.filter((entry) => entry.category === category) : catalog,
  };
}

export type NodeRegistry = ReturnType<typeof createNodeRegistry>;
