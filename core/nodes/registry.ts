import { settingsSchema } from "./node-settings.js";
import {
  catalogEntry,
  type CatalogEntry,
  type ConfigField,
  type NodeCategory,
  type NodeDefinition,
} from "./define-node.js";

/**
 * A catalog entry as GET /api/nodes serves it: the declaration's, plus the settings every node
 * takes beside its config (timeout, retry, on_error) with this type's defaults.
 */
export type NodeCatalogEntry = CatalogEntry & { settings_schema: Record<string, ConfigField> };

/** The node types an installation knows: built-ins plus its custom nodes. */
export function createNodeRegistry(definitions: readonly NodeDefinition[]) {
  const byType = new Map<string, NodeDefinition>();
  for (const definition of definitions) {
    if (byType.has(definition.type)) throw new Error(`Node type "${definition.type}" is registered twice`);
    byType.set(definition.type, definition);
  }
  const catalog: NodeCatalogEntry[] = [...byType.values()].map((definition) => ({
    ...catalogEntry(definition),
    settings_schema: settingsSchema(definition),
  }));
  return {
    get: (type: string) => byType.get(type),
    types: () => [...byType.keys()],
    catalog: (category?: NodeCategory): NodeCatalogEntry[] =>
      category ? catalog.filter((entry) => entry.category === category) : catalog,
  };
}

export type NodeRegistry = ReturnType<typeof createNodeRegistry>;
