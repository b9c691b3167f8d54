// The credentials a flow names: each node config field declared as a credential field (see
// credentialFields), with the types its node accepts. Checked when the flow is saved.
import type { FlowDefinition } from "../contracts/flow-definition.js";
import { credentialFields } from "../nodes/define-node.js";
import type { NodeRegistry } from "../nodes/registry.js";
import type { CredentialReference } from "./credentials.service.js";

export function credentialReferences(definition: FlowDefinition, registry: NodeRegistry): CredentialReference[] {
  return definition.nodes.flatMap((node, index) => {
    const type = registry.get(node.type);
    if (!type) return [];
    const fields = [...credentialFields(type)].flatMap(([key, accepts]) => {
      const id = node.config[key];
      return typeof id === "string" ? [{ path: `nodes[${index}].config.${key}`, id, accepts }] : [];
    });
    return [...fields, ...fallbackReferences(node.config, index, type.config.shape)];
  });
}

/** The ai_provider credentials of a model node's fallbacks (`fallbacks[].credential_id`). */
function fallbackReferences(config: Record<string, unknown>, index: number, shape: object): CredentialReference[] {
  if (!("fallbacks" in shape) || !Array.isArray(config.fallbacks)) return [];
  return config.fallbacks.flatMap((fallback: unknown, at) => {
    const id = (fallback as { credential_id?: unknown } | null)?.credential_id;
    return typeof id === "string"
      ? [{ path: `nodes[${index}].config.fallbacks[${at}].credential_id`, id, accepts: ["ai_provider"] }]
      : [];
  });
}
